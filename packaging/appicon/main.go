// Command appicon draws RAMBar's app icon: a 1024×1024 PNG in the macOS icon
// grid (an 824-pixel rounded square with room for the system's shadow)
// showing a memory module over a blue gradient. It is run by `go generate
// ./assets` and writes assets/appicon.png; `make icons` turns that into the
// .icns the bundle carries. The drawing is plain arithmetic (4×4 supersampled
// signed-distance shapes), so the output is the same byte for byte on every
// machine.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"

	"rambar/internal/atomicfile"
)

// Size is the icon's edge in pixels.
const Size = 1024

func main() {
	out := flag.String("o", "appicon.png", "PNG to write")
	size := flag.Int("size", Size, "edge in pixels: 1024, or a size that divides it (512, 256, 128…) for a Linux icon theme")
	flag.Parse()
	data, err := EncodeAt(*size)
	if err == nil {
		err = atomicfile.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "appicon:", err)
		os.Exit(1)
	}
}

// Encode draws the icon and returns it as a PNG.
func Encode() ([]byte, error) { return EncodeAt(Size) }

// EncodeAt draws the icon at size pixels a side (Size, or a size that
// divides it: each pixel the average of the full drawing's) as a PNG.
func EncodeAt(size int) ([]byte, error) {
	if size <= 0 || size > Size || Size%size != 0 {
		return nil, fmt.Errorf("-size %d: give %d or a size that divides it (512, 256, 128…)", size, Size)
	}
	img := Draw()
	if size != Size {
		img = shrink(img, Size/size)
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	if err := enc.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("png encode: %w", err)
	}
	return b.Bytes(), nil
}

// shrink makes each f×f block of img one pixel, averaged with alpha
// weighting (a transparent pixel adds no colour).
func shrink(img *image.NRGBA, f int) *image.NRGBA {
	n := img.Bounds().Dx() / f
	out := image.NewNRGBA(image.Rect(0, 0, n, n))
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			var r, g, b, a float64
			for j := 0; j < f; j++ {
				for i := 0; i < f; i++ {
					c := img.NRGBAAt(x*f+i, y*f+j)
					w := float64(c.A)
					r, g, b, a = r+float64(c.R)*w, g+float64(c.G)*w, b+float64(c.B)*w, a+w
				}
			}
			if a > 0 {
				out.SetNRGBA(x, y, color.NRGBA{uint8(math.Round(r / a)), uint8(math.Round(g / a)), uint8(math.Round(b / a)), uint8(math.Round(a / float64(f*f)))})
			}
		}
	}
	return out
}

// rgba is a straight (not premultiplied) colour with components in 0..1.
type rgba struct{ r, g, b, a float64 }

func hex(v uint32) rgba {
	return rgba{float64(v>>16&0xff) / 255, float64(v>>8&0xff) / 255, float64(v&0xff) / 255, 1}
}

func mix(a, b rgba, t float64) rgba {
	return rgba{a.r + (b.r-a.r)*t, a.g + (b.g-a.g)*t, a.b + (b.b-a.b)*t, a.a + (b.a-a.a)*t}
}

// over composites src over dst (both straight alpha).
func over(dst, src rgba) rgba {
	a := src.a + dst.a*(1-src.a)
	if a == 0 {
		return rgba{}
	}
	f := func(s, d float64) float64 { return (s*src.a + d*dst.a*(1-src.a)) / a }
	return rgba{f(src.r, dst.r), f(src.g, dst.g), f(src.b, dst.b), a}
}

// roundRect is the signed distance from (x, y) to a rectangle with corner
// radius r: negative inside.
func roundRect(x, y, x0, y0, x1, y1, r float64) float64 {
	cx, cy := (x0+x1)/2, (y0+y1)/2
	hx, hy := (x1-x0)/2-r, (y1-y0)/2-r
	dx, dy := math.Abs(x-cx)-hx, math.Abs(y-cy)-hy
	out := math.Hypot(math.Max(dx, 0), math.Max(dy, 0))
	return out + math.Min(math.Max(dx, dy), 0) - r
}

// Icon geometry (pixels of the 1024 canvas).
const (
	tileMin, tileMax, tileRadius = 100.0, 924.0, 185.0
	boardX0, boardX1             = 196.0, 828.0
	boardY0, boardY1             = 372.0, 668.0
	pinTop                       = 606.0
	pins                         = 18
	notchX                       = 560.0
)

var (
	skyTop    = hex(0x4FA3F7)
	skyBottom = hex(0x1D4ED8)
	board     = hex(0x0F5132)
	boardEdge = hex(0x0B3D26)
	chip      = hex(0x1F2430)
	chipTop   = hex(0x2E3545)
	gold      = hex(0xF5C451)
	barLight  = rgba{1, 1, 1, 0.9}
)

// Regions sample tells apart: a pixel whose four corners lie in the same
// region is drawn from its centre alone; the others (edges) are supersampled.
const (
	regionOutside = iota
	regionTile
	regionShadow
	regionRim
	regionBoard
	regionPin
	regionChip
	regionChipTop
	regionBar = 16 // added to the region under the bar
)

// sample is the colour of the point (x, y) and the region it lies in.
func sample(x, y float64) (rgba, int) {
	// The tile: a vertical gradient.
	if roundRect(x, y, tileMin, tileMin, tileMax, tileMax, tileRadius) > 0 {
		return rgba{}, regionOutside
	}
	t := (y - tileMin) / (tileMax - tileMin)
	c, region := mix(skyTop, skyBottom, t), regionTile
	// Far from the module (its shadow reaches 18+24 px below it), only the tile.
	if x < boardX0-24 || x > boardX1+24 || y < boardY0-8 || y > boardY1+18+24 {
		return c, region
	}
	// The module's shadow, offset downwards.
	if d := roundRect(x, y-18, boardX0, boardY0, boardX1, boardY1, 26); d < 24 {
		c, region = over(c, rgba{0, 0, 0.1, 0.28 * (1 - math.Max(d, 0)/24)}), regionShadow
	}
	// The circuit board, with a darker rim.
	d := roundRect(x, y, boardX0, boardY0, boardX1, boardY1, 26)
	if d > 0 || math.Abs(x-notchX) < 14 && y > boardY1-40 {
		return c, region // outside the board, or in the keying notch cut through it
	}
	if d > -8 {
		c, region = boardEdge, regionRim
	} else {
		c, region = board, regionBoard
	}
	// Gold contacts along the bottom edge, with the keying notch.
	if y > pinTop && y < boardY1-10 {
		pitch := (boardX1 - boardX0 - 60) / pins
		i := math.Floor((x - boardX0 - 30) / pitch)
		if i >= 0 && i < pins {
			px := boardX0 + 30 + i*pitch
			if roundRect(x, y, px+5, pinTop+6, px+pitch-5, boardY1-14, 5) < 0 && math.Abs(x-notchX) > 16 {
				c, region = gold, regionPin
			}
		}
	}
	// Four memory chips.
	for i := 0; i < 4; i++ {
		x0 := boardX0 + 52 + float64(i)*140
		if roundRect(x, y, x0, 420, x0+112, 560, 10) < 0 {
			c, region = chip, regionChip
			if y < 440 {
				c, region = chipTop, regionChipTop
			}
		}
	}
	// The "bar": a level meter across the chips, what the app shows.
	if roundRect(x, y, boardX0+52, 478, boardX0+52+440, 502, 12) < 0 {
		c, region = over(c, barLight), region+regionBar
	}
	return c, region
}

// Draw renders the icon. Pixels whose corners share a region take the
// colour at their centre; the others average 4×4 samples.
func Draw() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, Size, Size))
	// Regions at the pixel corners, one row of Size+1 at a time.
	above, below := make([]int, Size+1), make([]int, Size+1)
	for x := range above {
		_, above[x] = sample(float64(x), 0)
	}
	to8 := func(v float64) uint8 { return uint8(math.Round(math.Min(math.Max(v, 0), 1) * 255)) }
	const n = 4
	for py := 0; py < Size; py++ {
		for x := range below {
			_, below[x] = sample(float64(x), float64(py+1))
		}
		for px := 0; px < Size; px++ {
			var c rgba
			r := above[px]
			if r == above[px+1] && r == below[px] && r == below[px+1] {
				c, _ = sample(float64(px)+0.5, float64(py)+0.5)
			} else {
				var acc rgba
				for sy := 0; sy < n; sy++ {
					for sx := 0; sx < n; sx++ {
						s, _ := sample(float64(px)+(float64(sx)+0.5)/n, float64(py)+(float64(sy)+0.5)/n)
						acc.r += s.r * s.a // premultiplied
						acc.g += s.g * s.a
						acc.b += s.b * s.a
						acc.a += s.a
					}
				}
				if acc.a > 0 {
					c = rgba{acc.r / acc.a, acc.g / acc.a, acc.b / acc.a, acc.a / (n * n)}
				}
			}
			if c.a > 0 {
				img.SetNRGBA(px, py, color.NRGBA{to8(c.r), to8(c.g), to8(c.b), to8(c.a)})
			}
		}
		above, below = below, above
	}
	return img
}
