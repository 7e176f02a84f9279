// Live dashboard of the tierkit control plane: polls /api/state and redraws the
// tables and the SVG plots. Plain JS, no dependencies, no build step.
"use strict";

const palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
  "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const svgNS = "http://www.w3.org/2000/svg";

function $(id) { return document.getElementById(id); }
function fmt(x, d) { return (x === undefined || x === null) ? "-" : Number(x).toFixed(d); }
function pct(x) { return fmt(100 * x, 1) + "%"; }
function esc(s) {
  return String(s === undefined || s === null ? "" : s).replace(/[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// colors keeps one color per series name across redraws.
const colors = {};
function color(name) {
  if (!(name in colors)) colors[name] = palette[Object.keys(colors).length % palette.length];
  return colors[name];
}

function routesText(routes) {
  if (!routes || routes.length === 0) return "home";
  return routes.map((r) => r.From + " \u2192 " + r.To + " " + pct(r.Share) + " (" + r.Mechanism + ")").join(", ");
}

function renderRegions(st) {
  const rows = (st.regions || []).map((r) => {
    const s = r.signal || {};
    return `<tr id="region-${esc(r.name)}" data-phase="${esc(r.phase)}">` +
      `<td class="l">${esc(r.name)}</td><td class="l ${esc(r.phase)}">${esc(r.phase)}</td>` +
      `<td>${r.up}/${r.hosts}</td><td>${fmt(r.demand, 2)}</td><td>${fmt(r.capacity, 2)}</td>` +
      `<td>${pct(s.P || 0)}</td><td>${pct(s.Home || 0)}</td><td>${pct(s.Projected || 0)}</td>` +
      `<td>${pct(r.out)}</td><td>${pct(r.in)}</td>` +
      `<td class="l routes" id="routes-${esc(r.name)}">${esc(routesText(r.routes))}</td>` +
      `<td class="l">${esc(r.class || "-")}</td>` +
      `<td class="reason">${esc(r.reason)}<br>${esc(r.evidence)}</td></tr>`;
  });
  document.querySelector("#regions tbody").innerHTML = rows.join("");
}

function renderHosts(st) {
  const rows = (st.hosts || []).map((h) => {
    const health = h.draining ? h.health + (h.drained ? ", drained" : ", draining") : h.health;
    return `<tr id="host-${esc(h.id)}" class="${h.draining ? "drain" : ""}">` +
      `<td class="l">${esc(h.id)}</td><td class="l">${esc(h.region)}</td>` +
      `<td class="l ${esc(h.health)}">${esc(health)}</td><td>${fmt(h.cores, 2)}</td>` +
      `<td class="weight">${fmt(h.weight, 3)}</td><td>${pct(h.share)}</td>` +
      `<td class="cpu">${pct(h.cpu)}</td><td>${fmt(h.load, 2)}</td><td class="l">${esc(h.reason || "-")}</td>` +
      `<td>${h.in_flight}</td><td>${fmt(h.rate, 0)}</td><td>${fmt(h.shed_rate, 1)}</td>` +
      `<td class="l knobs">${esc((h.changed || []).map((n) => n + "=" + h.knobs[n]).join(" "))}</td>` +
      `<td class="l">${esc(h.error || "")}</td>` +
      `<td><button type="button" class="drain-toggle" data-id="${esc(h.id)}" data-drained="${h.drained}">` +
      `${h.drained ? "undrain" : "drain"}</button></td></tr>`;
  });
  document.querySelector("#hosts tbody").innerHTML = rows.join("");
}

function renderTenants(st) {
  const rows = (st.tenants || []).map((t) =>
    `<tr id="tenant-${esc(t.name)}"><td class="l">${esc(t.name)}</td><td>${fmt(t.request_rate, 1)}</td>` +
    `<td class="shed">${fmt(t.shed_rate, 1)}</td><td>${t.shed}</td><td>${t.requests}</td></tr>`);
  document.querySelector("#tenants tbody").innerHTML = rows.join("") ||
    '<tr><td class="l" colspan="5">no tenant counters yet</td></tr>';
}

// plot draws one SVG line chart: series is {name: [[t, y], ...]}.
function plot(id, title, series, opts) {
  const W = 440, H = 170, L = 44, R = 8, T = 8, B = 20;
  let box = $(id);
  if (!box) {
    box = document.createElement("div");
    box.className = "plot";
    box.id = id;
    $("plots").appendChild(box);
  }
  let t0 = Infinity, t1 = -Infinity, ymax = opts.ymin || 0;
  for (const pts of Object.values(series)) {
    for (const [t, y] of pts) {
      t0 = Math.min(t0, t); t1 = Math.max(t1, t);
      ymax = Math.max(ymax, Math.min(y, opts.ycap || Infinity));
    }
  }
  if (!isFinite(t0)) { t0 = 0; t1 = 1; }
  if (t1 === t0) t1 = t0 + 1;
  if (ymax <= 0) ymax = 1;
  const x = (t) => L + (W - L - R) * (t - t0) / (t1 - t0);
  const y = (v) => T + (H - T - B) * (1 - Math.min(v, ymax) / ymax);
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("width", W);
  svg.setAttribute("height", H);
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(svgNS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.appendChild(e);
    return e;
  };
  for (let i = 0; i <= 4; i++) {
    const v = ymax * i / 4;
    add("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#eee" });
    add("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end", "font-size": 10, fill: "#666" },
      opts.percent ? Math.round(100 * v) + "%" : v.toPrecision(2));
  }
  add("text", { x: W - R, y: H - 4, "text-anchor": "end", "font-size": 10, fill: "#666" },
    Math.round((t1 - t0) / 1000) + " s");
  for (const [name, pts] of Object.entries(series)) {
    if (pts.length === 0) continue;
    const d = pts.map(([t, v], i) => (i ? "L" : "M") + x(t).toFixed(1) + " " + y(v).toFixed(1)).join(" ");
    add("path", { d: d, fill: "none", stroke: color(name), "stroke-width": 1.5, "data-series": name });
  }
  const legend = Object.keys(series).map((n) =>
    `<span><i style="background:${color(n)}"></i>${esc(n)}</span>`).join("");
  box.innerHTML = `<div class="title">${esc(title)}</div><div class="legend">${legend}</div>`;
  box.appendChild(svg);
}

function renderPlots(st) {
  const hist = st.history || [];
  const hostCPU = {}, hostShare = {}, out = {}, proj = {}, shed = {};
  for (const p of hist) {
    for (const [id, h] of Object.entries(p.hosts || {})) {
      (hostCPU[id] = hostCPU[id] || []).push([p.t, h.c]);
      (hostShare[id] = hostShare[id] || []).push([p.t, h.s]);
    }
    for (const [name, r] of Object.entries(p.regions || {})) {
      (out[name] = out[name] || []).push([p.t, r.out]);
      (proj[name] = proj[name] || []).push([p.t, r.proj]);
    }
    for (const name of Object.keys(p.shed || {})) shed[name] = shed[name] || [];
  }
  // A point lists the tenants that shed in its tick: a tenant absent shed
  // none then, and its line goes through 0 (only tenants that shed in the
  // window are drawn).
  for (const p of hist) {
    for (const name of Object.keys(shed)) shed[name].push([p.t, (p.shed || {})[name] || 0]);
  }
  plot("plot-cpu", "CPU per gateway (utilization of its cores)", hostCPU, { percent: true, ymin: 1, ycap: 4 });
  plot("plot-share", "Ring share per gateway (within its region)", hostShare, { percent: true, ymin: 0.5 });
  plot("plot-spill", "Spill: share of each region's demand served elsewhere", out, { percent: true, ymin: 0.5 });
  plot("plot-signal", "Failover signal: projected home p90 CPU", proj, { percent: true, ymin: 1, ycap: 3 });
  plot("plot-shed", "Shed requests per second, per tenant", shed, { ymin: 1 });
}

function render(st) {
  $("version").textContent = st.version;
  $("tick").textContent = st.tick;
  $("now").textContent = st.tick ? new Date(st.now).toISOString() : "-";
  $("cadence").textContent = fmt(st.cadence_ms, 0);
  $("gateways").textContent = st.stats.gateways;
  $("draining").textContent = st.stats.draining;
  $("pollerrors").textContent = st.stats.poll_errors;
  $("publications").textContent = st.stats.publications;
  renderRegions(st);
  renderHosts(st);
  renderTenants(st);
  $("kill").textContent = st.rollout.Kill ? "ON (everything direct)" : "off";
  document.querySelector("#rollout tbody").innerHTML = (st.rollout.Rules || []).map((r) =>
    `<tr><td class="l">${esc(r.Service)}</td><td class="l">${esc(r.Prefix || "(every key)")}</td>` +
    `<td>${fmt(r.Percent, 2)}</td><td class="l">${esc((r.Regions || []).join(", ") || "all")}</td>` +
    `<td class="l">${esc(r.Salt)}</td></tr>`).join("") ||
    '<tr><td class="l" colspan="5">no rule: every request goes direct</td></tr>';
  renderPlots(st);
}

// Operator actions: they call the API, then redraw at once. Each is based on
// the state the page shows (last) and sends its change tag as If-Match: if
// another operator or an agent changed the plane since, the API refuses it
// with 412 and the page says so until the next action, having drawn the
// current state for the operator to check and redo the change on.
let last = null;
async function post(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (last && last.change_tag) headers["If-Match"] = last.change_tag;
  $("conflict").textContent = "";
  try {
    // The API refuses a POST not declared as JSON (what a cross-site form could send).
    const resp = await fetch(path, {
      method: "POST",
      headers,
      body: body === undefined ? "" : JSON.stringify(body),
    });
    if (resp.status === 412) {
      $("conflict").textContent = "Not applied: the plane was changed by someone else since this page " +
        "read it. The page now shows the current state: check it, then redo the change.";
    } else if (!resp.ok) {
      throw new Error("POST " + path + ": " + (await resp.text()));
    }
    $("error").textContent = "";
  } catch (e) {
    $("error").textContent = String(e);
  }
  refresh();
}

function wire() {
  $("kill-toggle").addEventListener("click", () => {
    if (!last) return;
    post("api/rollout", { Rules: last.rollout.Rules || [], Kill: !last.rollout.Kill });
  });
  $("percent-set").addEventListener("click", () => {
    if (!last) return;
    // A cleared or out-of-range field is refused here: Number("") is 0, which
    // would send every rule's traffic direct.
    const raw = $("percent").value.trim();
    const pc = Number(raw);
    if (raw === "" || !Number.isFinite(pc) || pc < 0 || pc > 100) {
      $("error").textContent = "percent: give a number from 0 to 100";
      return;
    }
    const rules = (last.rollout.Rules || []).map((r) => Object.assign({}, r, { Percent: pc }));
    post("api/rollout", { Rules: rules, Kill: last.rollout.Kill });
  });
  document.querySelector("#hosts tbody").addEventListener("click", (ev) => {
    const b = ev.target.closest("button.drain-toggle");
    if (!b) return;
    post((b.dataset.drained === "true" ? "api/undrain/" : "api/drain/") + encodeURIComponent(b.dataset.id));
  });
}

async function refresh() {
  const resp = await fetch("api/state", { cache: "no-store" });
  if (!resp.ok) throw new Error("GET api/state: " + resp.status);
  const st = await resp.json();
  last = st;
  render(st);
  return st;
}

let period = 1000;
async function poll() {
  try {
    const st = await refresh();
    period = Math.max(200, st.cadence_ms || 1000);
    $("error").textContent = "";
  } catch (e) {
    $("error").textContent = String(e);
  }
  setTimeout(poll, period);
}

wire();
poll();
