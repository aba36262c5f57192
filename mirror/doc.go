// Package mirror is being built.
package mirror
