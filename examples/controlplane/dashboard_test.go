package controlplane_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/citest"
)

// chromium returns the path of a Chromium binary, or "" when there is none.
func chromium() string {
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// The dashboard loads in headless Chromium, updates as the plane ticks, and shows a
// route change: region eu pushed toward overload spills to us, and the page's
// routes cell names the new route.
func TestDashboardInChromium(t *testing.T) {
	bin := chromium()
	if bin == "" {
		citest.SkipOrFailInCI(t, "no Chromium binary (chromium, chromium-browser, google-chrome): run scripts/setup.sh to install Debian's chromium")
	}
	p, ft := twoRegions(t, 1.2)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()

	// The plane ticks on explicit time, driven by this goroutine until the test ends.
	var mu sync.Mutex
	k := 0
	tick := func() {
		mu.Lock()
		defer mu.Unlock()
		ft.advance(time.Second)
		k++
		_ = p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second))
	}
	tick()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The first call starts the browser and must not carry a timeout (it would stop
	// the browser); the actions after it are bounded.
	require.NoError(t, chromedp.Do(bctx))
	ctx, cancelT := context.WithTimeout(bctx, 90*time.Second)
	defer cancelT()
	deadline := time.Now().Add(60 * time.Second) // leaves ctx time to report

	// text reads an element's text in one script run: the page rewrites its tables
	// on every poll, so a node found by one protocol call may be gone at the next.
	text := func(sel string) string {
		q, _ := json.Marshal(sel)
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector(`+string(q)+`) || {textContent: ""}).textContent`))
		require.NoError(t, err)
		return strings.TrimSpace(s)
	}
	// waitText ticks the plane (each) until the page's sel satisfies cond, within
	// ctx's deadline; the page polls /api/state on its own.
	waitText := func(sel string, cond func(string) bool, each func()) string {
		for {
			s := text(sel)
			if cond(s) {
				return s
			}
			if ctx.Err() != nil || time.Now().After(deadline) {
				st := p.State()
				t.Fatalf("%s never satisfied the condition; last %q; plane: %+v %+v", sel, s, region(st, "eu"), st.Stats)
			}
			if each != nil {
				each()
			}
			require.NoError(t, chromedp.Do(ctx, chromedp.Sleep(50*time.Millisecond)))
		}
	}

	// Loads: the tables fill from /api/state.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#region-eu")), chromedp.WaitVisible(chromedp.CSS("#host-eu-1"))))
	require.Equal(t, "tierkit control plane", text("h1"))
	first := waitText("#tick", func(s string) bool { return s != "-" }, nil)
	require.Equal(t, "home", text("#routes-eu"))

	// Updates: the tick count and the CPU column move as the plane ticks.
	n0, err := strconv.Atoi(first)
	require.NoError(t, err)
	waitText("#tick", func(s string) bool { n, _ := strconv.Atoi(s); return n >= n0+3 }, tick)
	waitText("#host-eu-1 .cpu", func(s string) bool { return s != "0.0%" && s != "-" }, tick)
	paths, err := chromedp.Run(ctx, chromedp.Evaluate[int](
		`document.querySelectorAll("#plot-cpu path[data-series]").length`))
	require.NoError(t, err)
	require.Equal(t, 6, paths, "one CPU line per gateway")

	// A route change: push eu toward overload until it spills; the page shows it.
	ft.setDemand("eu", 2.9)
	routes := waitText("#routes-eu", func(s string) bool { return strings.Contains(s, "eu \u2192 us") }, tick)
	require.Contains(t, routes, "(ring)")
	r, v := p.Routes()
	require.Positive(t, spill(r, "eu"))
	phase, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#region-eu").dataset.phase`))
	require.NoError(t, err)
	require.Equal(t, "spilling", phase)
	waitText("#version", func(s string) bool { n, _ := strconv.Atoi(s); return uint64(n) >= v }, nil)
	spillPath, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`document.querySelector('#plot-spill path[data-series="eu"]').getAttribute("d")`))
	require.NoError(t, err)
	require.Contains(t, spillPath, "L", "a line of several points")

	// An operator drain shows on the gateway's row.
	require.NoError(t, p.Drain("us-3"))
	waitText("#host-us-3", func(s string) bool { return strings.Contains(s, "drained") }, nil)

	// The page's own controls: undrain us-3, flip the kill switch.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#host-us-3 button.drain-toggle`))))
	waitText("#host-us-3", func(s string) bool { return !strings.Contains(s, "drained") }, nil)
	_, v = p.Routes()
	require.Empty(t, p.State().Draining)
	// A cleared percent field is refused on the page: Number("") is 0, which
	// would send every rule's traffic direct. One script run sets the field,
	// clicks and reads what the click did (the handler runs synchronously, so no
	// poll can clear the message in between), with fetch counted meanwhile.
	refused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		let posts = 0;
		const f = window.fetch;
		window.fetch = (...a) => { posts++; return f(...a); };
		try {
			for (const v of ["", "  ", "101", "-1"]) {
				document.querySelector("#percent").value = v;
				document.querySelector("#percent-set").click();
			}
		} finally { window.fetch = f; }
		return posts + " posts: " + document.querySelector("#error").textContent;
	})()`))
	require.NoError(t, err)
	require.Equal(t, "0 posts: percent: give a number from 0 to 100", refused)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#kill-toggle"))))
	waitText("#kill", func(s string) bool { return strings.HasPrefix(s, "ON") }, nil)
	require.True(t, p.State().Rollout.Kill)
	_, v2 := p.Routes()
	require.Greater(t, v2, v, "the kill switch published a new version")

	// A click on a page whose state another change made stale is refused (412),
	// and the page says so: the page's state is put back to one read before a
	// drain through the Go API, then the kill switch is clicked in the same
	// script run (no poll in between).
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(window.staleState = last).change_tag`))
	require.NoError(t, err)
	require.NotEmpty(t, kept)
	require.NoError(t, p.Drain("us-3"))
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](
		`(last = window.staleState, document.querySelector("#kill-toggle").click(), true)`))
	require.NoError(t, err)
	waitText("#conflict", func(s string) bool { return strings.HasPrefix(s, "Not applied") }, nil)
	require.True(t, p.State().Rollout.Kill, "the stale toggle changed nothing")
}
