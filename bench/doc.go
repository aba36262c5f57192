// Package bench is being built.
package bench
