// Package assets is being built.
package assets
