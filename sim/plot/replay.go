package plot

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Agreement is one line of a pick-agreement plot: the share of a trace
// replay's picks on which the model agreed with the kernel, window by
// window.
type Agreement struct {
	Name string // legend entry: "all CPUs", "CPU 2"
	// TimesNs are the windows' midpoints, ns from the trace's start, in
	// ascending order; Percent the agreement in each, 0 to 100. A NaN
	// percent is a window without a scored pick: the line breaks there.
	TimesNs []int64
	Percent []float64
}

// Pinned is what a pinned (mode A) trace replay draws: the agreement over
// the trace's time above the distributions of the trace's latencies.
type Pinned struct {
	// AgreementTitle heads the upper panel (say, the window's width).
	AgreementTitle string
	// Overall is drawn as a heavy black line; PerCPU as thin coloured
	// ones behind it. Either may be empty.
	Overall Agreement
	PerCPU  []Agreement
	// LatencyTitle heads the lower panel, the CDF of each series, drawn
	// as LatencyCDF draws it (Series.Others as thin curves). Empty: no
	// lower panel.
	LatencyTitle string
	Latency      []Series
}

// PinnedReplay writes a PNG of a pinned replay in two panels, one above
// the other: the pick agreement (%) against the time since the trace's
// start, and the latency CDFs. A panel with nothing to draw (no line with
// a window of scored picks; no latency series) is left out and the other
// takes the whole image; with neither, PinnedReplay returns an error and
// writes nothing. opt.Title, if set, heads the image; the default height
// is 640 points with both panels, 400 with one.
//
// The image is written with a palette of the plot's own colours and their
// blends with white (the antialiased edges, the light curves) and greys:
// a quarter of the bytes of a full-colour PNG, and the same picture.
func PinnedReplay(w io.Writer, p Pinned, opt Options) error {
	img, err := pinnedImage(p, opt)
	if err != nil {
		return err
	}
	return writeCompact(w, img.Image())
}

// FreeReplay writes a PNG of a free (mode B) trace replay: the CDF of each
// series' wakeup latency (trace, model, toggled model), drawn as
// LatencyCDF draws it and written with PinnedReplay's palette.
func FreeReplay(w io.Writer, series []Series, opt Options) error {
	f, err := cdfFigure(series, opt)
	if err != nil {
		return err
	}
	img, _ := f.render(opt, outside)
	return writeCompact(w, img.Image())
}

// compactPalette is the palette of writeCompact: 40 greys from black to
// white, and for each of the curves' colours 30 steps from the colour to
// white — 250 colours in all.
var compactPalette = func() color.Palette {
	var pal color.Palette
	for i := range 40 {
		y := uint8(i * 255 / 39)
		pal = append(pal, color.NRGBA{y, y, y, 0xff})
	}
	for i := range len(plotutil.SoftColors) {
		r, g, b, _ := plotutil.Color(i).RGBA()
		for k := range 30 {
			// k/29 of the way from the colour to white.
			mix := func(c uint32) uint8 { return uint8((int(c>>8)*(29-k) + 255*k) / 29) }
			pal = append(pal, color.NRGBA{mix(r), mix(g), mix(b), 0xff})
		}
	}
	return pal
}()

// writeCompact writes img as a PNG of compactPalette, each pixel the
// nearest colour of the palette (found once per distinct colour).
func writeCompact(w io.Writer, img image.Image) error {
	b := img.Bounds()
	out := image.NewPaletted(b, compactPalette)
	cache := map[color.RGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i, ok := cache[c]
			if !ok {
				i = uint8(compactPalette.Index(c))
				cache[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	return (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(w, out)
}

func pinnedImage(p Pinned, opt Options) (vgimg.PngCanvas, error) {
	var figs []*figure
	if f, err := agreementFigure(p); err != nil {
		return vgimg.PngCanvas{}, err
	} else if f != nil {
		figs = append(figs, f)
	}
	if len(p.Latency) > 0 {
		f, err := cdfFigure(p.Latency, Options{Title: p.LatencyTitle, LogX: opt.LogX, MaxPoints: opt.MaxPoints, OthersLabel: opt.OthersLabel})
		if err != nil {
			return vgimg.PngCanvas{}, err
		}
		figs = append(figs, f)
	}
	if len(figs) == 0 {
		return vgimg.PngCanvas{}, errors.New("plot: a replay with no scored pick and no latency sample: nothing to draw")
	}
	if opt.Height <= 0 && len(figs) == 2 {
		opt.Height = 640
	}
	wd, ht := opt.size()
	img := vgimg.PngCanvas{Canvas: vgimg.New(wd, ht)}
	c := draw.New(img)
	if opt.Title != "" {
		// The image's title, above both panels, wrapped as a panel's is.
		sty := figs[0].p.Title.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
		top := c.Max.Y
		for _, line := range wrap(opt.Title, sty, c.Size().X-2*gap) {
			h := sty.Rectangle(line).Size().Y
			c.FillText(sty, vg.Point{X: c.Center().X, Y: top - h + sty.FontExtents().Descent}, line)
			top -= h
		}
		c = draw.Crop(c, 0, 0, 0, top-c.Max.Y-gap/2)
	}
	share := c.Size().Y / vg.Length(len(figs))
	for i, f := range figs {
		// Panel i from the top.
		panel := draw.Crop(c, 0, 0, share*vg.Length(len(figs)-1-i), -share*vg.Length(i))
		if i > 0 {
			panel = draw.Crop(panel, 0, 0, 0, -gap) // apart from the x label above
		}
		f.draw(panel, outside)
	}
	return img, nil
}

// agreementFigure is the upper panel, or nil when no line has a point.
func agreementFigure(p Pinned) (*figure, error) {
	lines := append([]Agreement{p.Overall}, p.PerCPU...)
	drawn := false
	for _, a := range lines {
		if len(a.TimesNs) != len(a.Percent) {
			return nil, fmt.Errorf("plot: agreement %q has %d times and %d values", a.Name, len(a.TimesNs), len(a.Percent))
		}
		for i, v := range a.Percent {
			if i > 0 && a.TimesNs[i] < a.TimesNs[i-1] {
				return nil, fmt.Errorf("plot: agreement %q: times out of order at %d", a.Name, i)
			}
			if !math.IsNaN(v) {
				if v < 0 || v > 100 {
					return nil, fmt.Errorf("plot: agreement %q: %v%% is not a share", a.Name, v)
				}
				drawn = true
			}
		}
	}
	if !drawn {
		return nil, nil
	}
	f := newFigure(p.AgreementTitle)
	pl := f.p
	pl.Y.Min, pl.Y.Max = 0, 105
	pl.Add(plotter.NewGrid())
	// addLine draws a's runs and returns the first, for the legend (nil
	// if a has no point).
	addLine := func(a Agreement, col color.Color, width vg.Length) (*plotter.Line, error) {
		var first *plotter.Line
		for _, run := range runs(a) {
			l, err := plotter.NewLine(run)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = col, width
			if len(run) == 1 {
				// A lone window: a dot, not a line of no length.
				s, err := plotter.NewScatter(run)
				if err != nil {
					return nil, err
				}
				s.Color, s.Radius = col, width+1
				pl.Add(s)
			}
			pl.Add(l)
			if first == nil {
				first = l
			}
		}
		return first, nil
	}
	// Per CPU first, behind the overall line; the overall line heads the
	// legend.
	perCPU := make([]*plotter.Line, len(p.PerCPU))
	for i, a := range p.PerCPU {
		var err error
		if perCPU[i], err = addLine(a, plotutil.Color(i), lightWidth+0.5); err != nil {
			return nil, err
		}
	}
	l, err := addLine(p.Overall, color.Black, heavyWidth)
	if err != nil {
		return nil, err
	}
	if l != nil {
		f.addLegend(p.Overall.Name, l)
	}
	for i, l := range perCPU {
		if l != nil {
			f.addLegend(p.PerCPU[i].Name, l)
		}
	}
	pl.X.Min = math.Min(pl.X.Min, 0)
	f.xLabel = setAxis(&pl.X, axis{quantity: "time since the trace's start", nsPer: 1})
	f.yLabel = setAxis(&pl.Y, axis{quantity: "picks agreed (%)"})
	return f, nil
}

// runs splits a line at its NaN values into runs of consecutive points.
func runs(a Agreement) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i, v := range a.Percent {
		if math.IsNaN(v) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: float64(a.TimesNs[i]), Y: v})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
