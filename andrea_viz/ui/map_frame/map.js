// The Projection page's canvas map (andrea_viz/plots/canvas_map.py builds its arguments). Plain JS speaking
// Streamlit's component protocol (postMessage: componentReady, render, setComponentValue, setFrameHeight).
// The points are drawn once into an offscreen raster; a pan or zoom moves and scales that bitmap, and the points
// are drawn again when the pointer rests. Tokens are untrusted: they are only ever set with textContent.
// By keyboard the canvas is a focusable application region: arrows move to the nearest point within 45 degrees of
// that direction on screen, Enter draws the lines (as a click does), Page Down/Up walk the lines' true nearest,
// a typed word jumps to its token; a live region says each step with the sentences the page sent in the reader's
// language (templates filled here: no sentence is built in this file).
"use strict";
const REST_MS = 140;      // the pointer rests this long: draw the points again at the new view
const HOVER_PX = 8;       // a point within this many pixels of the pointer is hovered
const CLICK_PX = 4;       // a press that moves less than this is a click, not a pan
const canvas = document.getElementById("map"), g = canvas.getContext("2d");
const tip = document.getElementById("tip"), labelBox = document.getElementById("labels");
const hint = document.getElementById("hint"), reset = document.getElementById("reset");
const say = document.getElementById("say");
const TYPE_MS = 1500;     // keys typed less than this apart spell one word (any other key ends the word too)
const raster = document.createElement("canvas"), rg = raster.getContext("2d");
const decoder = new TextDecoder();
// Sane bounds on a render message, checked before anything is allocated: the largest vocabulary the app maps is
// 262,144 tokens (the frame is built for 128k), the palette has at most 256 entries (a uint8 index), and a token
// blob larger than 64 MiB is not a vocabulary's.
const MAX_POINTS = 1 << 21, MAX_BLOB = 64 << 20, MAX_LABELS = 4096, MAX_LINES = 4096, MAX_PALETTE = 256;
const S = {points: null, n: 0, xy: null, ids: null, colour: null, kept: null, offsets: null, blob: null, palette: [],
           grid: null, order: null, lo: [0, 0], hi: [1, 1], fit: 1, text: {}, labels: [], lines: null, height: 640,
           view: {cx: 0, cy: 0, s: 1}, rasterView: null, dirty: false, rest: 0, drag: null, clicks: 0, W: 0, H: 0,
           dpr: 1, rasters: 0, frames: 0, sel: -1, walk: -1, typed: "", typedAt: 0, words: null, waitLines: -1,
           idTarget: null, clickedAt: null};
window.__map = S;  // for the benchmark and the browser tests

function send(type, data) { window.parent.postMessage(Object.assign({isStreamlitMessage: true, type}, data), "*"); }
const copy = (u) => { const c = new Uint8Array(u.byteLength); c.set(u); return c.buffer; };  // aligned, our own
const token = (k) => decoder.decode(S.blob.subarray(S.offsets[k], S.offsets[k + 1]));

const isInt = (v, lo, hi) => Number.isInteger(v) && v >= lo && v <= hi;
const bytesOf = (u, n) => ArrayBuffer.isView(u) && u.byteLength === n;
const isText = (v) => typeof v === "string" && v.length <= 10000;

// Why a render message is refused ("" when it is sound): every array's length checked against n and against the
// others, n and the blob against the caps, the palette, labels, lines and texts of the shapes canvas_map.py writes.
// A message claiming 3e7 points is refused here, before a byte is copied.
function refusal(a) {
  if (!a || typeof a !== "object") return "no arguments";
  if (a.mode === "lines") return a.lines == null || (a.lines && typeof a.lines === "object") ? "" : "lines";
  if (!isInt(a.n, 0, MAX_POINTS)) return "n";
  const n = a.n;
  if (!bytesOf(a.xy, 8 * n) || !bytesOf(a.ids, 4 * n) || !bytesOf(a.colour, n) || !bytesOf(a.kept, n)) return "arrays";
  if (!bytesOf(a.offsets, 4 * (n + 1)) || !ArrayBuffer.isView(a.tokens) || a.tokens.byteLength > MAX_BLOB) return "tokens";
  if (typeof a.points !== "string" || !isInt(a.height, 100, 4000)) return "points";
  if (!Array.isArray(a.palette) || !isInt(a.palette.length, 1, MAX_PALETTE)) return "palette";
  for (const p of a.palette) {
    if (!p || !Array.isArray(p.rgb) || p.rgb.length !== 3 || !p.rgb.every((c) => isInt(c, 0, 255))) return "palette";
    if (!isInt(p.size, 1, 64) || (p.name != null && !isText(p.name))) return "palette";
  }
  if (a.labels != null && (!Array.isArray(a.labels) || a.labels.length > MAX_LABELS)) return "labels";
  for (const L of a.labels || []) {
    if (!L || !Number.isFinite(L.x) || !Number.isFinite(L.y) || !isText(L.text) || !isInt(L.level, 0, 16)
        || !(L.until == null || isInt(L.until, L.level + 1, 17))) return "labels";
  }
  const T = a.text;
  if (!T || !["kept", "unscored", "hint", "reset"].every((k) => isText(T[k]))) return "text";
  if (!Object.keys(T).every((k) => isText(T[k]))) return "text";  // the keyboard's sentences, where sent
  if (a.points === S.points) return "";  // the arrays were checked when they came
  const offsets = new DataView(a.offsets.buffer, a.offsets.byteOffset, a.offsets.byteLength);
  let last = 0;
  for (let k = 0; k <= n; k++) {  // offsets rise from 0 and end inside the blob
    const o = offsets.getInt32(4 * k, true);
    if (o < last || (k === 0 && o !== 0)) return "offsets";
    last = o;
  }
  if (last > a.tokens.byteLength) return "offsets";
  const colour = new Uint8Array(a.colour.buffer, a.colour.byteOffset, n);
  for (let k = 0; k < n; k++) if (colour[k] >= a.palette.length) return "colour";
  return "";
}

function badLines(L) {  // lines from one point to its nearest: positions inside the points drawn
  if (L == null) return false;
  return !L || !isInt(L.from, 0, S.n - 1) || !Array.isArray(L.to) || L.to.length > MAX_LINES ||
    !L.to.every((j) => isInt(j, 0, S.n - 1));
}

function loadPoints(a) {
  S.n = a.n; S.points = a.points;
  S.xy = new Float32Array(copy(a.xy)); S.ids = new Int32Array(copy(a.ids));
  S.colour = new Uint8Array(copy(a.colour)); S.kept = new Uint8Array(copy(a.kept));
  S.offsets = new Int32Array(copy(a.offsets)); S.blob = new Uint8Array(copy(a.tokens));
  S.palette = a.palette.map((p) => ({u32: (255 << 24 | p.rgb[2] << 16 | p.rgb[1] << 8 | p.rgb[0]) >>> 0, size: p.size,
                                     rgb: "rgb(" + p.rgb.join(",") + ")", name: p.name}));
  const used = new Uint8Array(S.palette.length);
  for (let k = 0; k < S.n; k++) used[S.colour[k]] = 1;
  S.legend = S.palette.filter((p, c) => used[c] && p.name);
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let k = 0; k < S.n; k++) {
    const x = S.xy[2 * k], y = S.xy[2 * k + 1];
    if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y;
  }
  if (!S.n) { x0 = y0 = 0; x1 = y1 = 1; }
  S.lo = [x0, y0]; S.hi = [x1 > x0 ? x1 : x0 + 1, y1 > y0 ? y1 : y0 + 1];
  // the drawing order: palette entries in order (the grey points first, the query last), a counting sort
  const count = new Uint32Array(S.palette.length + 1);
  for (let k = 0; k < S.n; k++) count[S.colour[k] + 1]++;
  for (let c = 1; c < count.length; c++) count[c] += count[c - 1];
  S.order = new Uint32Array(S.n);
  for (let k = 0; k < S.n; k++) S.order[count[S.colour[k]]++] = k;
  // the hover index: a uniform grid over the map's box, about two points a cell, its cells' points contiguous
  const G = Math.max(1, Math.ceil(Math.sqrt(S.n / 2))), start = new Uint32Array(G * G + 1), cell = new Uint32Array(S.n);
  const gx = G / (S.hi[0] - S.lo[0]), gy = G / (S.hi[1] - S.lo[1]);
  for (let k = 0; k < S.n; k++) {
    const i = Math.min(G - 1, Math.floor((S.xy[2 * k] - S.lo[0]) * gx)), j = Math.min(G - 1, Math.floor((S.xy[2 * k + 1] - S.lo[1]) * gy));
    cell[k] = j * G + i; start[cell[k] + 1]++;
  }
  for (let c = 1; c <= G * G; c++) start[c] += start[c - 1];
  const fill = start.slice(0, G * G), items = new Uint32Array(S.n);
  for (let k = 0; k < S.n; k++) items[fill[cell[k]]++] = k;
  S.grid = {G, gx, gy, start, items};
  fitView();
}

function fitView() {
  const w = S.hi[0] - S.lo[0], h = S.hi[1] - S.lo[1];
  S.fit = 0.92 * Math.min(S.W / w, S.H / h) || 1;
  S.view = {cx: (S.lo[0] + S.hi[0]) / 2, cy: (S.lo[1] + S.hi[1]) / 2, s: S.fit};
  S.rasterView = null;
}

const sx = (x, v) => S.W / 2 + (x - v.cx) * v.s;
const sy = (y, v) => S.H / 2 - (y - v.cy) * v.s;

function drawPoints() {  // every point into the raster, at the current view, in device pixels
  const W = Math.round(S.W * S.dpr), H = Math.round(S.H * S.dpr), v = S.view, r = S.dpr;
  if (raster.width !== W || raster.height !== H) { raster.width = W; raster.height = H; }
  const img = rg.createImageData(W, H), px = new Uint32Array(img.data.buffer);
  px.fill(0xffffffff);
  const xy = S.xy, order = S.order, colour = S.colour, pal = S.palette;
  const ox = (S.W / 2 - v.cx * v.s) * r, oy = (S.H / 2 + v.cy * v.s) * r, s = v.s * r;
  const drawn = S.idTarget;  // the id read-back (drawnIds): each drawn point's id as one pixel of its own
  for (let q = 0; q < order.length; q++) {
    const k = order[q], p = pal[colour[k]], size = Math.max(1, Math.round(p.size * r)), half = size >> 1;
    const x0 = Math.round(ox + xy[2 * k] * s) - half, y0 = Math.round(oy - xy[2 * k + 1] * s) - half;
    if (x0 >= W || y0 >= H || x0 + size <= 0 || y0 + size <= 0) continue;
    const xa = Math.max(0, x0), xb = Math.min(W, x0 + size), ya = Math.max(0, y0), yb = Math.min(H, y0 + size);
    for (let y = ya; y < yb; y++) px.fill(p.u32, y * W + xa, y * W + xb);
    if (drawn && S.ids[k] < drawn.length) drawn[S.ids[k]] = 0xff0000ff;  // opaque red at pixel id (little-endian RGBA)
  }
  rg.putImageData(img, 0, 0);
  S.rasterView = {cx: v.cx, cy: v.cy, s: v.s};
  S.rasters++;
  document.body.dataset.rasters = String(S.rasters);
}

function drawnIds(side = 512) {  // how many distinct ids the point pass draws at this view, read back from a
  // side × side target (pixel id ← id; ids past side² are not counted): for the benchmark and the browser tests
  const target = new ImageData(side, side);
  S.idTarget = new Uint32Array(target.data.buffer);
  try { drawPoints(); } finally { S.idTarget = null; }
  const c = document.createElement("canvas"); c.width = side; c.height = side;
  const cg = c.getContext("2d", {willReadFrequently: true});
  cg.putImageData(target, 0, 0);
  const back = cg.getImageData(0, 0, side, side).data;
  let count = 0;
  for (let j = 3; j < back.length; j += 4) if (back[j] === 255) count++;
  schedule();
  return count;
}

function frame() {  // the raster moved and scaled to the view, then the lines and the labels over it
  S.dirty = false;
  S.frames++;
  const r = S.dpr, v = S.view, rv = S.rasterView;
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.fillStyle = "#fff"; g.fillRect(0, 0, canvas.width, canvas.height);
  if (rv) {
    const k = v.s / rv.s;
    g.setTransform(k, 0, 0, k, (S.W / 2 + (rv.cx - v.cx) * v.s - S.W / 2 * k) * r, (S.H / 2 - (rv.cy - v.cy) * v.s - S.H / 2 * k) * r);
    g.imageSmoothingEnabled = k < 1;
    g.drawImage(raster, 0, 0);
  }
  g.setTransform(r, 0, 0, r, 0, 0);
  drawLines();
  if (S.lines && S.clickedAt != null && S.ids[S.lines.from] === S.ids[S.sel]) {  // the clicked point's lines, painted
    document.body.dataset.clickMs = String(Math.round(performance.now() - S.clickedAt));  // read by bench-map-view
    S.clickedAt = null;
  }
  drawSelected();
  drawLegend();
  placeLabels();
}

function drawLegend() {  // the word groups' names and colours, top left; names are drawn as canvas text only
  const L = S.legend || [];
  if (!L.length) return;
  g.font = "12px 'Source Sans Pro', sans-serif";
  const w = 26 + Math.max(...L.map((p) => g.measureText(p.name).width)), h = 8 + 17 * L.length;
  g.fillStyle = "rgba(255, 255, 255, 0.85)"; g.fillRect(6, 6, w, h);
  g.textBaseline = "middle";
  L.forEach((p, j) => {
    const y = 14 + 17 * j;
    g.fillStyle = p.rgb; g.fillRect(12, y - 4, 8, 8);
    g.fillStyle = "#31333f"; g.fillText(p.name, 26, y + 1);
  });
}

function drawLines() {
  const L = S.lines;
  if (!L || L.from == null || L.from >= S.n) return;
  const v = S.view, ax = sx(S.xy[2 * L.from], v), ay = sy(S.xy[2 * L.from + 1], v);
  g.strokeStyle = "rgba(0, 0, 0, 0.85)"; g.lineWidth = 1.5;
  g.beginPath();
  for (const j of L.to) { g.moveTo(ax, ay); g.lineTo(sx(S.xy[2 * j], v), sy(S.xy[2 * j + 1], v)); }
  g.stroke();
  g.fillStyle = "#000";
  for (const j of L.to) { g.beginPath(); g.arc(sx(S.xy[2 * j], v), sy(S.xy[2 * j + 1], v), 3, 0, 2 * Math.PI); g.fill(); }
  g.fillStyle = "#d62728"; g.beginPath(); g.arc(ax, ay, 5, 0, 2 * Math.PI); g.fill();
}

function drawSelected() {  // the point the keyboard is on: a ring the focus colour, white inside it
  if (S.sel < 0 || S.sel >= S.n) return;
  const x = sx(S.xy[2 * S.sel], S.view), y = sy(S.xy[2 * S.sel + 1], S.view);
  g.lineWidth = 3; g.strokeStyle = "#fff"; g.beginPath(); g.arc(x, y, 9, 0, 2 * Math.PI); g.stroke();
  g.lineWidth = 2.5; g.strokeStyle = "#0072b2"; g.beginPath(); g.arc(x, y, 11, 0, 2 * Math.PI); g.stroke();
}

function zoomLevel() { return Math.log2(S.view.s / S.fit); }

function placeLabels() {  // the labels offered at this zoom (reached, not yet split), largest first, none over another
  const level = zoomLevel(), placed = [], v = S.view;
  for (const L of S.labels) {
    const x = sx(L.x, v), y = sy(L.y, v) - 4;
    let show = L.level <= level + 1e-9 && (L.until == null || level < L.until - 1e-9)
      && x > 0 && x < S.W && y > 0 && y < S.H;
    let at = x;
    if (show) {
      const w = L.w || (L.w = L.el.offsetWidth || 8 * L.text.length), h = 16;
      at = Math.max(w / 2 + 2, Math.min(S.W - w / 2 - 2, x));  // a label near an edge moves inward, whole on the canvas
      const box = [at - w / 2, y - h, at + w / 2, y];
      show = !placed.some((b) => box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3]);
      if (show) placed.push(box);
    }
    L.el.hidden = !show;
    if (show) { L.el.style.left = at.toFixed(1) + "px"; L.el.style.top = y.toFixed(1) + "px"; }
  }
  document.body.dataset.zoom = level.toFixed(3);
}

function setLabels(list) {
  labelBox.replaceChildren();
  S.labels = (list || []).map((L) => {
    const el = document.createElement("div");
    el.className = "label level" + L.level;
    el.dataset.level = String(L.level);
    if (L.until != null) el.dataset.until = String(L.until);
    el.textContent = L.text;
    labelBox.appendChild(el);
    return {x: L.x, y: L.y, text: L.text, level: L.level, until: L.until, el, w: 0};
  });
}

function schedule() { if (!S.dirty) { S.dirty = true; requestAnimationFrame(frame); } }
function settle() {  // redraw the points once the pointer has rested
  clearTimeout(S.rest);
  S.rest = setTimeout(() => { drawPoints(); schedule(); }, REST_MS);
}

function nearest(mx, my, radius) {  // the point drawn nearest to (mx, my) in css px within radius, or -1
  if (!S.grid || !S.n) return -1;
  const v = S.view, x = v.cx + (mx - S.W / 2) / v.s, y = v.cy - (my - S.H / 2) / v.s, rd = radius / v.s, G = S.grid.G;
  const i0 = Math.max(0, Math.floor((x - rd - S.lo[0]) * S.grid.gx)), i1 = Math.min(G - 1, Math.floor((x + rd - S.lo[0]) * S.grid.gx));
  const j0 = Math.max(0, Math.floor((y - rd - S.lo[1]) * S.grid.gy)), j1 = Math.min(G - 1, Math.floor((y + rd - S.lo[1]) * S.grid.gy));
  let best = -1, bestD = Infinity;
  for (let j = j0; j <= j1; j++) for (let i = i0; i <= i1; i++) {
    const c = j * G + i;
    for (let q = S.grid.start[c]; q < S.grid.start[c + 1]; q++) {
      const k = S.grid.items[q], dx = (S.xy[2 * k] - x) * v.s, dy = (S.xy[2 * k + 1] - y) * v.s;
      const d = Math.sqrt(dx * dx + dy * dy) - S.palette[S.colour[k]].size / 2;  // a larger square is nearer
      if (d < bestD || (d === bestD && S.colour[k] > S.colour[best])) { bestD = d; best = k; }
    }
  }
  return bestD <= radius ? best : -1;
}

function showTip(k, mx, my) {
  if (k < 0) { tip.style.display = "none"; delete document.body.dataset.hovered; return; }
  const kept = S.kept[k], X = S.text;
  tip.textContent = token(k) + " #" + S.ids[k] + "\n" + X.kept + ": " + (kept === 255 ? X.unscored : kept + "%");
  tip.style.display = "block";
  const w = tip.offsetWidth, h = tip.offsetHeight;
  tip.style.left = Math.min(S.W - w - 4, mx + 14) + "px";
  tip.style.top = (my + 16 + h > S.H ? my - h - 10 : my + 16) + "px";
  document.body.dataset.hovered = String(S.ids[k]);
}

const local = (e) => { const b = canvas.getBoundingClientRect(); return [e.clientX - b.left, e.clientY - b.top]; };
canvas.addEventListener("pointerdown", (e) => {
  const [mx, my] = local(e);
  S.drag = {mx, my, cx: S.view.cx, cy: S.view.cy, moved: false};
  canvas.setPointerCapture(e.pointerId);
});
canvas.addEventListener("pointermove", (e) => {
  const [mx, my] = local(e), d = S.drag;
  if (d) {
    if (!d.moved && Math.hypot(mx - d.mx, my - d.my) < CLICK_PX) return;
    if (!d.moved) { d.moved = true; canvas.classList.add("dragging"); showTip(-1); clearTimeout(S.rest); }
    S.view.cx = d.cx - (mx - d.mx) / S.view.s;
    S.view.cy = d.cy + (my - d.my) / S.view.s;
    schedule();
    return;
  }
  showTip(nearest(mx, my, HOVER_PX), mx, my);
});
canvas.addEventListener("pointerup", (e) => {
  const d = S.drag;
  S.drag = null;
  canvas.classList.remove("dragging");
  if (!d) return;
  if (d.moved) { settle(); return; }
  const [mx, my] = local(e), k = nearest(mx, my, HOVER_PX);
  if (k < 0) return;
  S.walk = -1; S.sel = k; document.body.dataset.selected = String(S.ids[k]);  // the keyboard goes on from here
  S.clickedAt = e.timeStamp; delete document.body.dataset.clickMs;
  send("streamlit:setComponentValue", {value: {id: S.ids[k], click: ++S.clicks}, dataType: "json"});
});
canvas.addEventListener("pointerleave", () => { if (!S.drag) showTip(-1); });
canvas.addEventListener("wheel", (e) => {
  e.preventDefault();
  const [mx, my] = local(e), v = S.view, f = Math.exp(-e.deltaY * 0.0015);
  const x = v.cx + (mx - S.W / 2) / v.s, y = v.cy - (my - S.H / 2) / v.s;  // stays under the pointer
  v.s = Math.min(S.fit * 4096, Math.max(S.fit / 4, v.s * f));
  v.cx = x - (mx - S.W / 2) / v.s; v.cy = y + (my - S.H / 2) / v.s;
  showTip(-1);
  schedule();
  settle();
}, {passive: false});
reset.addEventListener("click", () => { fitView(); drawPoints(); schedule(); });

function resize() {
  const W = canvas.clientWidth, H = canvas.clientHeight;
  if (!W || !H || (W === S.W && H === S.H)) return;
  const first = !S.W;
  S.W = W; S.H = H; S.dpr = Math.min(window.devicePixelRatio || 1, 2);
  canvas.width = Math.round(W * S.dpr); canvas.height = Math.round(H * S.dpr);
  if (S.xy) {
    if (first) fitView(); else S.fit = 0.92 * Math.min(S.W / (S.hi[0] - S.lo[0]), S.H / (S.hi[1] - S.lo[1]));
    drawPoints();
  }
  schedule();
}

function setLines(L) {  // positions in the sample: from one point to its true nearest
  if (badLines(L)) { refuse("lines"); return; }
  const fresh = !S.lines !== !L || (L && (S.lines.from !== L.from || S.lines.to.join() !== L.to.join()));
  S.lines = L;
  if (fresh) S.walk = -1;
  if (L && S.waitLines >= 0 && S.ids[L.from] === S.ids[S.waitLines]) { S.waitLines = -1; announce(fill("lines", {token: token(L.from), count: L.to.length})); }
  document.body.dataset.linesFrom = L ? String(S.ids[L.from]) : "";
  document.body.dataset.lines = L ? L.to.map((j) => S.ids[j]).join(",") : "";
  schedule();
}

// The lines come in a frame of their own (mode "lines", no height), so that a click sends only them: the map's
// message stays the same and Streamlit sends it as a reference to the one the browser holds. Both frames are
// the app's own origin; whichever renders second hands the lines over, by a call into the other frame: only a
// sibling of this frame's own origin is visited (the browser forbids touching another origin's window; the check
// says so before it is tried), and what it hands over is checked as a message would be (setLines).
function siblings(visit) {
  for (let k = 0; k < window.parent.frames.length; k++) {
    try {
      const f = window.parent.frames[k];
      if (f !== window && f.location.origin === window.location.origin) visit(f);
    } catch (e) { /* a frame of another origin */ }
  }
}

function renderLines(a) {
  send("streamlit:setFrameHeight", {height: 0});
  document.getElementById("wrap").hidden = true;  // this frame only hands the lines over: nothing in it to read
  window.andreaLines = {target: a.target, lines: a.lines};
  siblings((f) => { if (f.andreaMap && f.andreaMap.points() === a.target) f.andreaMap.setLines(a.lines); });
}

function refuse(why) {  // a message ignored: counted, and its reason kept, for the browser tests
  document.body.dataset.refused = String(Number(document.body.dataset.refused || 0) + 1);
  document.body.dataset.refusedWhy = why;
}

function render(a) {
  // the reader's language, for a screen reader (a BCP 47 tag or nothing)
  if (typeof a.lang === "string" && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(a.lang)) document.documentElement.lang = a.lang;
  const why = refusal(a);
  if (why) { refuse(why); return; }
  if (a.mode === "lines") { renderLines(a); return; }
  S.text = a.text; S.height = a.height;
  document.getElementById("wrap").style.height = a.height + "px";
  send("streamlit:setFrameHeight", {height: a.height});
  S.W = canvas.clientWidth; S.H = canvas.clientHeight;
  S.dpr = Math.min(window.devicePixelRatio || 1, 2);
  canvas.width = Math.round(S.W * S.dpr); canvas.height = Math.round(S.H * S.dpr);
  hint.textContent = document.activeElement === canvas && a.text.keys ? a.text.keys : a.text.hint;
  reset.textContent = a.text.reset;
  canvas.setAttribute("aria-label", a.text.label || a.text.hint);
  if (a.points !== S.points) { loadPoints(a); S.sel = -1; S.walk = -1; S.words = null; drawPoints(); setLines(null); }  // new points: a new raster; else keep it
  else if (!S.rasterView) drawPoints();
  setLabels(a.labels);
  window.andreaMap = {points: () => S.points, setLines, drawnIds};
  siblings((f) => { const c = f.andreaLines; if (c && c.target === S.points) setLines(c.lines); });
  document.body.dataset.ready = S.points;
  schedule();
}

// ---- the keyboard -----------------------------------------------------------------------------------------------
function fill(name, vals) {  // one of the page's sentences with its {names} filled in (a value is never read again)
  const t = S.text[name] || "";
  return t.replace(/\{(\w+)\}/g, (m, k) => (Object.prototype.hasOwnProperty.call(vals, k) ? String(vals[k]) : m));
}

function announce(text) {  // the live region's text: what a screen reader says next
  say.textContent = text;
  document.body.dataset.said = text;
}

function describe(k) {  // "dog, id 3899, 8 of its 10 nearest kept here, region: animals"
  const region = S.palette[S.colour[k]].name, kept = S.kept[k];
  const name = (kept === 255 ? "point_unscored" : "point") + (region ? "" : "_plain");
  return fill(name, {token: token(k), id: S.ids[k], kept: Math.round(kept / 10), region: region || ""});
}

function select(k, text) {  // the keyboard's point: ringed, kept in view, said
  S.sel = k;
  document.body.dataset.selected = String(S.ids[k]);
  const v = S.view, x = sx(S.xy[2 * k], v), y = sy(S.xy[2 * k + 1], v), m = 24;
  if (x < m || x > S.W - m || y < m || y > S.H - m) { v.cx = S.xy[2 * k]; v.cy = S.xy[2 * k + 1]; drawPoints(); }
  schedule();
  announce(text === undefined ? describe(k) : text);
}

function centreMost() {  // the point nearest the middle of the view: where the keyboard starts without a choice
  const v = S.view;
  let best = -1, bestD = Infinity;
  for (let k = 0; k < S.n; k++) {
    const dx = S.xy[2 * k] - v.cx, dy = S.xy[2 * k + 1] - v.cy, d = dx * dx + dy * dy;
    if (d < bestD) { bestD = d; best = k; }
  }
  return best;
}

// The nearest point on screen within 45 degrees of the direction (dx, dy) (screen axes, y down) from point k, or -1;
// equal distances go to the lower position. Screen and map differ by a uniform scale and a flip of y, so this works
// in the map's units: dot >= |p| cos 45 is 2 dot^2 >= |p|^2 with dot > 0 (tests/e2e/test_map_keyboard.py repeats it).
function towards(k, dx, dy) {
  const x0 = S.xy[2 * k], y0 = S.xy[2 * k + 1];
  let best = -1, bestD = Infinity;
  for (let j = 0; j < S.n; j++) {
    const px = S.xy[2 * j] - x0, py = -(S.xy[2 * j + 1] - y0), d = px * px + py * py;
    if (j === k || d === 0 || d >= bestD) continue;
    const dot = px * dx + py * dy;
    if (dot > 0 && 2 * dot * dot >= d) { bestD = d; best = j; }
  }
  return best;
}

// A typed word's token: the token itself, else the one that reads the same without a word-start mark (##, Ġ, ▁) or
// case, else the shortest that starts so; ties to the first in the map.
const bare = (t) => t.replace(/^(?:##|[\u0120\u2581 ])+/, "").toLowerCase();
function findWord(typed) {
  if (!S.words) { S.words = new Array(S.n); for (let k = 0; k < S.n; k++) S.words[k] = token(k); }
  const want = bare(typed);
  let same = -1, starts = -1;
  for (let k = 0; k < S.n; k++) {
    const w = S.words[k];
    if (w === typed) return k;
    const b = bare(w);
    if (same < 0 && b === want) same = k;
    else if (b.startsWith(want) && (starts < 0 || w.length < S.words[starts].length)) starts = k;
  }
  return same >= 0 ? same : starts;
}

const ARROWS = {ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
function onKey(e) {
  if (!S.n || e.ctrlKey || e.metaKey || e.altKey) return;
  const key = e.key;
  if (key.length !== 1) S.typed = "";  // a key that is not a letter ends the word being typed
  if (ARROWS[key]) {
    e.preventDefault();
    if (S.sel < 0) { select(S.lines ? S.lines.from : centreMost()); return; }
    const j = towards(S.sel, ...ARROWS[key]);
    if (j < 0) { announce(fill("nothing", {})); return; }
    S.walk = -1;
    select(j);
  } else if (key === "Enter") {
    e.preventDefault();
    if (S.sel < 0) { select(S.lines ? S.lines.from : centreMost()); return; }
    if (S.lines && S.lines.from === S.sel) { announce(fill("lines", {token: token(S.sel), count: S.lines.to.length})); return; }
    S.waitLines = S.sel;
    send("streamlit:setComponentValue", {value: {id: S.ids[S.sel], click: ++S.clicks}, dataType: "json"});
  } else if (key === "PageDown" || key === "PageUp") {
    e.preventDefault();
    const L = S.lines, onWalk = L && (S.sel === L.from || (S.walk >= 0 && L.to[S.walk] === S.sel));
    if (!onWalk) { if (S.sel >= 0) announce(fill("no_lines", {token: token(S.sel)})); return; }
    const at = S.sel === L.from ? -1 : S.walk, next = key === "PageDown" ? Math.min(at + 1, L.to.length - 1) : at - 1;
    if (next < 0) { S.walk = -1; select(L.from); return; }
    S.walk = next;
    const j = L.to[next];
    select(j, fill("nearest", {rank: next + 1, count: L.to.length, origin: token(L.from), point: describe(j)}));
  } else if (key.length === 1 && key !== " ") {
    e.preventDefault();
    const now = performance.now();
    S.typed = (now - S.typedAt < TYPE_MS ? S.typed : "") + key;
    S.typedAt = now;
    let k = findWord(S.typed);
    if (k < 0 && S.typed.length > 1 && findWord(key) >= 0) { S.typed = key; k = findWord(key); }  // a new word
    if (k < 0) { announce(fill("no_match", {typed: S.typed})); return; }
    S.walk = -1;
    select(k);
  }
}
canvas.addEventListener("keydown", onKey);
canvas.addEventListener("focus", () => { if (S.text.keys) hint.textContent = S.text.keys; });
canvas.addEventListener("blur", () => { if (S.text.hint) hint.textContent = S.text.hint; });

// Only the page that holds this frame speaks to it: a render message from any other window (a page of another
// site that opened or framed the app, a frame beside this one) is refused, whatever it says.
window.addEventListener("message", (e) => {
  if (!e.data || e.data.type !== "streamlit:render") return;
  if (e.source !== window.parent) { refuse("source"); return; }
  render(e.data.args);
});
new ResizeObserver(resize).observe(canvas);
send("streamlit:componentReady", {apiVersion: 1});
