package plot

import (
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// figure is a plot being built: gonum's plot with its data and axes, and
// the legend's entries, kept apart so that the legend can be drawn beside
// the plotting area rather than over it.
type figure struct {
	p *plot.Plot
	// xLabel and yLabel are the axes' labels, drawn centred on the
	// plotting area.
	xLabel, yLabel string
	legend         []legendEntry
	// title is drawn centred on the whole image, broken into lines
	// where it would be wider.
	title string
	// tail is the data whose region the legend must leave free, in data
	// coordinates; the tests compare the two boxes.
	tail []vg.Point
}

type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

func newFigure(title string) *figure {
	return &figure{p: plot.New(), title: title}
}

func (f *figure) addLegend(name string, thumbs ...plot.Thumbnailer) {
	f.legend = append(f.legend, legendEntry{name, thumbs})
}

// placement is where the legend goes.
type placement int

const (
	// outside: in a strip to the right of the plot, or below it when
	// the entries are too wide for a strip of a third of the image.
	outside placement = iota
	// insideBottomRight is gonum's default, inside the plotting area: the
	// corner where a latency tail ends. Only the tests draw it, to show
	// that their check catches a legend over the data.
	insideBottomRight
	// insideTopLeft is inside the plotting area, where a per-seed plot
	// puts a point that the patch raised by orders of magnitude.
	insideTopLeft
)

// gap separates the legend from the plot and from the image's edge.
const gap = vg.Length(8)

// layout is where a drawing put its parts, in canvas coordinates.
type layout struct {
	image  vg.Rectangle // the whole image
	data   vg.Rectangle // the plotting area: inside the axes
	legend vg.Rectangle // the legend's entries, thumbnails and text
}

// gonumLegend is the figure's legend as gonum draws it.
func (f *figure) gonumLegend() plot.Legend {
	l := plot.NewLegend()
	l.Padding = 2
	for _, e := range f.legend {
		l.Add(e.name, e.thumbs...)
	}
	return l
}

// legendSize is the extent of the legend's entries stacked one per line:
// a thumbnail, a space, the text.
func (f *figure) legendSize(l plot.Legend) vg.Point {
	var s vg.Point
	var entry vg.Length
	for _, e := range f.legend {
		r := l.TextStyle.Rectangle(" " + e.name)
		s.X = max(s.X, l.ThumbnailWidth+r.Max.X)
		entry = max(entry, l.TextStyle.Rectangle(e.name).Max.Y)
	}
	n := vg.Length(len(f.legend))
	if n > 0 {
		s.Y = n*entry + (n-1)*l.Padding
	}
	return s
}

// draw draws the figure on c with its legend where pl says and returns
// where everything went.
func (f *figure) draw(c draw.Canvas, pl placement) layout {
	lg := f.gonumLegend()
	size := f.legendSize(lg)
	f.p.Legend = plot.NewLegend() // the plot draws no legend of its own
	lay := layout{image: c.Rectangle}
	area := c
	if f.title != "" {
		sty := f.p.Title.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
		top := c.Max.Y
		for _, line := range wrap(f.title, sty, c.Size().X-2*gap) {
			h := sty.Rectangle(line).Size().Y
			c.FillText(sty, vg.Point{X: c.Center().X, Y: top - h + sty.FontExtents().Descent}, line)
			top -= h
		}
		area = draw.Crop(c, 0, 0, 0, top-c.Max.Y-max(f.p.Title.Padding, gap/2))
	}
	below := false
	if len(f.legend) > 0 && pl == outside {
		if size.X+2*gap <= c.Size().X/3 {
			area = draw.Crop(area, 0, -(size.X + 2*gap), 0, 0)
		} else {
			below = true
			area = draw.Crop(area, 0, 0, size.Y+2*gap, 0)
		}
	}
	// The axes' labels, outside the area the plot draws in.
	xsty, ysty := f.p.X.Label.TextStyle, f.p.Y.Label.TextStyle
	ysty.Rotation += math.Pi / 2
	var left, bottom vg.Length
	if f.yLabel != "" {
		left = ysty.Height(f.yLabel) + f.p.Y.Label.Padding
	}
	if f.xLabel != "" {
		bottom = xsty.Height(f.xLabel) + f.p.X.Label.Padding
	}
	inner := draw.Crop(area, left, 0, bottom, 0)
	f.p.Draw(inner)
	lay.data = f.p.DataCanvas(inner).Rectangle
	mid := vg.Point{X: (lay.data.Min.X + lay.data.Max.X) / 2, Y: (lay.data.Min.Y + lay.data.Max.Y) / 2}
	if f.yLabel != "" {
		c.FillText(ysty, vg.Point{X: area.Min.X + ysty.Height(f.yLabel) - ysty.FontExtents().Descent, Y: mid.Y}, f.yLabel)
	}
	if f.xLabel != "" {
		c.FillText(xsty, vg.Point{X: mid.X, Y: area.Min.Y + xsty.FontExtents().Descent}, f.xLabel)
	}
	if len(f.legend) == 0 {
		return lay
	}
	switch {
	case pl == outside && !below:
		// To the right of the plot, its first entry level with the top
		// of the plotting area.
		lay.legend.Min.X = area.Max.X + gap
		lay.legend.Max.Y = lay.data.Max.Y
	case pl == outside:
		// Below the x axis, aligned with the plotting area's left edge.
		lay.legend.Min.X = lay.data.Min.X
		lay.legend.Max.Y = c.Min.Y + gap + size.Y
	case pl == insideBottomRight:
		lay.legend.Min.X = lay.data.Max.X - size.X
		lay.legend.Max.Y = lay.data.Min.Y + size.Y
	case pl == insideTopLeft:
		lay.legend.Min.X = lay.data.Min.X
		lay.legend.Max.Y = lay.data.Max.Y
	}
	lay.legend.Max.X = lay.legend.Min.X + size.X
	lay.legend.Min.Y = lay.legend.Max.Y - size.Y
	lg.Top, lg.Left = true, true
	lg.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: lay.legend})
	return lay
}

// wrap breaks text at spaces into lines no wider than width (a word
// longer than that gets a line of its own).
func wrap(s string, sty text.Style, width vg.Length) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case sty.Width(line+" "+word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// render draws the figure on a PNG canvas of the options' size.
func (f *figure) render(opt Options, pl placement) (vgimg.PngCanvas, layout) {
	w, h := opt.size()
	img := vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	lay := f.draw(draw.New(img), pl)
	return img, lay
}

// write draws the figure with its legend outside the data and writes it
// as a PNG image.
func (f *figure) write(w io.Writer, opt Options) error {
	img, _ := f.render(opt, outside)
	_, err := img.WriteTo(w)
	return err
}
