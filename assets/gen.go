//go:build ignore

// gen draws RAMBar's menu-bar icons: a memory module (body, three chips cut
// out, a notch, pins), plain and with a warning dot. Run by `go generate
// ./assets`. The template PNGs are black on transparent, as macOS wants for
// menu-bar images that follow light and dark mode; the plain ones are for
// Linux panels, whose colour is unknown: a light glyph with a dark outline
// reads on both.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

// Px is the icon's side in pixels: 16 points at 2x on macOS; Linux panels scale it.
const px = 32

// unit: the glyph is drawn on a 16×16 grid.
const scale = px / 16.0

type rect struct{ x0, y0, x1, y1 float64 }

func (r rect) grow(d float64) rect { return rect{r.x0 - d, r.y0 - d, r.x1 + d, r.y1 + d} }
func (r rect) has(x, y float64) bool {
	return x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1
}

var (
	body  = rect{1, 3.5, 15, 11}
	holes = []rect{
		{2.5, 5, 5.25, 8.25}, {6.65, 5, 9.35, 8.25}, {10.75, 5, 13.5, 8.25}, // chips
		{7.3, 9.5, 8.7, 11.1}, // notch
	}
	pins = func() []rect {
		var out []rect
		for _, x := range []float64{2, 4, 6, 9.25, 11.25, 13.25} {
			out = append(out, rect{x, 11.75, x + 0.9, 14})
		}
		return out
	}()
	dot     = struct{ x, y, r float64 }{13, 3, 2.9}
	dotMoat = 1.1 // gap cut around the warning dot
)

// inGlyph reports whether (x,y) is in the glyph grown by d (d<0 shrinks).
func inGlyph(x, y, d float64, warn bool) bool {
	in := false
	if body.grow(d).has(x, y) {
		in = true
		for _, h := range holes {
			if h.grow(-d).has(x, y) {
				in = false
			}
		}
	}
	for _, p := range pins {
		if p.grow(d).has(x, y) {
			in = true
		}
	}
	if warn && math.Hypot(x-dot.x, y-dot.y) < dot.r+dotMoat-d {
		in = false
	}
	return in
}

func inDot(x, y, d float64) bool { return math.Hypot(x-dot.x, y-dot.y) < dot.r+d }

// cover returns the share of pixel (i,j) for which f holds, 4×4 samples.
func cover(i, j int, f func(x, y float64) bool) float64 {
	n := 0
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			x := (float64(i) + (float64(a)+0.5)/4) / scale
			y := (float64(j) + (float64(b)+0.5)/4) / scale
			if f(x, y) {
				n++
			}
		}
	}
	return float64(n) / 16
}

// over composites c with alpha a onto dst.
func over(dst color.NRGBA, c color.NRGBA, a float64) color.NRGBA {
	if a <= 0 {
		return dst
	}
	da := float64(dst.A) / 255
	oa := a + da*(1-a)
	mix := func(s, d uint8) uint8 {
		return uint8(math.Round((float64(s)*a + float64(d)*da*(1-a)) / oa))
	}
	return color.NRGBA{mix(c.R, dst.R), mix(c.G, dst.G), mix(c.B, dst.B), uint8(math.Round(oa * 255))}
}

func draw(template, warn bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, px, px))
	ink := color.NRGBA{0, 0, 0, 255}
	fill := color.NRGBA{0xEE, 0xEE, 0xEE, 255}
	edge := color.NRGBA{0x22, 0x22, 0x22, 255}
	amber := color.NRGBA{0xF2, 0x9B, 0x0C, 255}
	const outline = 0.7 // grid units
	for j := 0; j < px; j++ {
		for i := 0; i < px; i++ {
			var c color.NRGBA
			if template {
				a := cover(i, j, func(x, y float64) bool { return inGlyph(x, y, 0, warn) || warn && inDot(x, y, 0) })
				c = over(c, ink, a)
			} else {
				c = over(c, edge, cover(i, j, func(x, y float64) bool { return inGlyph(x, y, outline, warn) }))
				c = over(c, fill, cover(i, j, func(x, y float64) bool { return inGlyph(x, y, 0, warn) }))
				if warn {
					c = over(c, edge, cover(i, j, func(x, y float64) bool { return inDot(x, y, outline) }))
					c = over(c, amber, cover(i, j, func(x, y float64) bool { return inDot(x, y, 0) }))
				}
			}
			img.SetNRGBA(i, j, c)
		}
	}
	return img
}

func write(name string, img image.Image) {
	f, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

func main() {
	write("tray.png", draw(false, false))
	write("tray-template.png", draw(true, false))
	write("tray-warning.png", draw(false, true))
	write("tray-warning-template.png", draw(true, true))
}
