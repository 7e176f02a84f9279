package main

import (
	"image/color"
	"io"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 255}, // tierkit: blue
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 255}, // grey
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 255}, // orange
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 255}, // green
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 255}, // red
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 255}, // purple
}

// series is one line of a plot.
type series struct {
	name string
	ys   []float64
}

func linePlot(title, xlabel, ylabel string, ymin, ymax float64, ss []series, hline float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Y.Min, p.Y.Max = ymin, ymax
	p.Legend.Top = true
	for i, s := range ss {
		pts := make(plotter.XYs, len(s.ys))
		for x, y := range s.ys {
			pts[x].X, pts[x].Y = float64(x), min(max(y, ymin), ymax)
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1)
		if i == 0 {
			l.Width = vg.Points(1.6)
		}
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	if hline > 0 && len(ss) > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: hline}, {X: float64(len(ss[0].ys) - 1), Y: hline}})
		if err != nil {
			return nil, err
		}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		l.Color = color.Black
		p.Add(l)
	}
	return p, nil
}

// saveGrid writes plots as a rows x cols grid into path.svg and path.png.
func saveGrid(path string, rows, cols int, ps []*plot.Plot, w, h vg.Length) error {
	if err := drawGrid(path+".svg", vgsvg.New(w, h), rows, cols, ps); err != nil {
		return err
	}
	return drawGrid(path+".png", vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))}, rows, cols, ps)
}

type canvasWriter interface {
	vg.CanvasSizer
	WriteTo(io.Writer) (int64, error)
}

func drawGrid(path string, c canvasWriter, rows, cols int, ps []*plot.Plot) error {
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	grid := make([][]*plot.Plot, rows)
	for r := range rows {
		grid[r] = make([]*plot.Plot, cols)
		for col := range cols {
			if i := r*cols + col; i < len(ps) {
				grid[r][col] = ps[i]
			}
		}
	}
	canvases := plot.Align(grid, tiles, dc)
	for r := range rows {
		for col := range cols {
			if grid[r][col] != nil {
				grid[r][col].Draw(canvases[r][col])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writePlots writes the three plots into dir, each as an SVG and a PNG.
func writePlots(dir string, bal []balResult, fail []failResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// 1. max/mean CPU per run, one tile per scenario, every controller.
	var ps []*plot.Plot
	for _, sc := range balScenarios {
		var ss []series
		for _, r := range bal {
			if r.scenario == sc.name {
				ss = append(ss, series{r.ctl, r.Series})
			}
		}
		p, err := linePlot(sc.name, "balancer run", "max/mean CPU", 1, 1.6, ss, 1.06)
		if err != nil {
			return err
		}
		ps = append(ps, p)
	}
	if err := saveGrid(filepath.Join(dir, "balancer-maxmean"), 2, 3, ps, 30*vg.Centimeter, 18*vg.Centimeter); err != nil {
		return err
	}
	// 2. keyspace moved per run in steady drift and task churn.
	ps = ps[:0]
	for _, name := range []string{"steady-drift", "task-churn"} {
		var ss []series
		for _, r := range bal {
			if r.scenario == name && r.ctl != "static-capacity" {
				pct := make([]float64, len(r.MovedSeries))
				for i, x := range r.MovedSeries {
					pct[i] = 100 * x
				}
				ss = append(ss, series{r.ctl, pct})
			}
		}
		p, err := linePlot(name+": keyspace moved per run", "balancer run", "% of keyspace", 0, 1, ss, 0.1)
		if err != nil {
			return err
		}
		ps = append(ps, p)
	}
	if err := saveGrid(filepath.Join(dir, "balancer-moved"), 1, 2, ps, 26*vg.Centimeter, 10*vg.Centimeter); err != nil {
		return err
	}
	// 3. regional mean CPU over the day, one tile per router.
	ps = ps[:0]
	for _, r := range fail {
		var ss []series
		for i, ys := range r.CPU {
			ss = append(ss, series{[]string{"a1", "a2", "a3", "b1", "b2", "b3"}[i], ys})
		}
		p, err := linePlot(r.ctl, "minute of the day", "regional mean CPU", 0.3, 1.0, ss, 0.9)
		if err != nil {
			return err
		}
		ps = append(ps, p)
	}
	return saveGrid(filepath.Join(dir, "failover-cpu"), 2, 2, ps, 30*vg.Centimeter, 20*vg.Centimeter)
}
