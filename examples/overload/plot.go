package main

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// plotResults draws, per variant, the share of normal tenants' requests served
// within the deadline and the goodput of every policy; the format follows the
// file name's extension (.svg, .png, .pdf).
func plotResults(path string, res []variant) error {
	p := plot.New()
	p.Title.Text = "1,350 tenants, 135% offered load (315% when noisy requests cost 4)"
	p.Y.Label.Text = "%"
	p.Y.Min, p.Y.Max = 0, 140
	w := vg.Points(10)
	colors := []color.RGBA{{R: 31, G: 119, B: 180, A: 255}, {R: 174, G: 199, B: 232, A: 255},
		{R: 214, G: 39, B: 40, A: 255}, {R: 255, G: 152, B: 150, A: 255}}
	i := 0
	for _, v := range res {
		var inDl, good plotter.Values
		for _, o := range v.Results {
			inDl = append(inDl, o.normalInDeadline())
			good = append(good, o.goodput())
		}
		for _, series := range []struct {
			label string
			vals  plotter.Values
		}{{"normal in deadline, " + v.Name, inDl}, {"goodput, " + v.Name, good}} {
			b, err := plotter.NewBarChart(series.vals, w)
			if err != nil {
				return err
			}
			b.Color = colors[i%len(colors)]
			b.LineStyle.Width = 0
			b.Offset = w * vg.Length(float64(i)-1.5)
			p.Add(b)
			p.Legend.Add(series.label, b)
			i++
		}
	}
	var names []string
	for _, o := range res[0].Results {
		names = append(names, o.Policy)
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.35
	p.X.Tick.Label.XAlign = -0.9
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.YOffs = -vg.Points(14) // below the title
	if err := p.Save(10*vg.Inch, 6*vg.Inch, path); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return nil
}
