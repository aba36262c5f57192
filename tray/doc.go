// Package tray is being built.
package tray
