// consim's charts: draws the data embedded in #consim-data with uPlot.
// One plot per column of the metrics lines; the report of a run, the
// report of a sweep (each grid point's runs with their mean and min-max
// band, and every point's mean) and the live view (metrics lines pushed
// as server-sent events) share it. It derives nothing from the numbers
// beyond what drawing needs: every value, mean and band comes from the
// page's data or the event stream.
//
// window.consim exposes the drawn charts for tests: consim.describe()
// lists each plot's name, series labels, number of points and number of
// finite values per series.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("consim-data").textContent);
  var chartsEl = document.getElementById("charts");
  var controls = document.getElementById("controls");
  var state = { kind: data.kind, charts: [], rows: 0, ended: false, errors: [] };
  window.consim = state;
  window.addEventListener("error", function (e) { state.errors.push(String(e.message)); });

  // Columns drawn on a linear axis by default; the others start on a
  // logarithmic one when they hold positive values and no negative one.
  var LINEAR = { round: 1, elapsed_s: 1, grad_evals: 1, msgs: 1, bytes: 1, obj_value: 1 };
  var COLORS = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#1b7c83", "#e16f24", "#4b6bfb", "#6e7781", "#d1242f"];
  var HEIGHT = 260;

  // fmt writes a value for axes and legends.
  function fmt(v) {
    if (v == null || !isFinite(v)) return "–";
    var a = Math.abs(v);
    if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(3).replace(/\.?0+e/, "e");
    return String(+v.toPrecision(6));
  }

  // yTicks labels a log axis at its powers of ten only.
  function yTicks(chart) {
    return function (u, vs) {
      return vs.map(function (v) {
        if (v == null) return "";
        if (!chart.log) return fmt(v);
        var e = Math.log10(v);
        return Math.abs(e - Math.round(e)) < 1e-9 ? fmt(v) : "";
      });
    };
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  function finiteCount(vs) {
    var n = 0;
    for (var i = 0; i < vs.length; i++) if (vs[i] != null) n++;
    return n;
  }

  // signs tells whether vs holds a positive and a negative value.
  function signs(vs) {
    var s = { pos: 0, neg: 0 };
    for (var i = 0; i < vs.length; i++) {
      if (vs[i] > 0) s.pos++;
      else if (vs[i] < 0) s.neg++;
    }
    return s;
  }

  // Chart is one plot: o.name and o.group name it; o.xLabel() and o.x()
  // give the x axis; o.series() the series, each {label, values, stroke,
  // width, dash}; o.bands pairs of series (1-based, upper first) whose
  // gap is filled.
  function Chart(parent, o) {
    this.o = o;
    this.el = el("div", "chart" + (o.wide ? " wide" : ""));
    var head = el("div", "head");
    head.appendChild(el("span", "name", o.title || o.name));
    this.empty = el("span", "small", "no finite values");
    head.appendChild(this.empty);
    var label = el("label");
    this.logBox = el("input");
    this.logBox.type = "checkbox";
    label.appendChild(this.logBox);
    label.appendChild(document.createTextNode(" log y"));
    head.appendChild(label);
    this.el.appendChild(head);
    this.body = el("div", "plot");
    this.el.appendChild(this.body);
    parent.appendChild(this.el);
    this.log = o.defaultLog && this.canLog();
    this.logBox.checked = this.log;
    var self = this;
    this.logBox.addEventListener("change", function () {
      self.userSet = true;
      self.log = self.logBox.checked && self.canLog();
      self.logBox.checked = self.log;
      self.build();
    });
    this.zoomed = false;
    this.u = null;
    this.build();
    state.charts.push(this);
  }

  Chart.prototype.canLog = function () {
    var ss = this.o.series();
    for (var i = 0; i < ss.length; i++) if (signs(ss[i].values).pos > 0) return true;
    return false;
  };

  // data maps the series onto the axis: on a log axis values <= 0 have
  // no place and are left out (null).
  Chart.prototype.data = function () {
    var log = this.log;
    var out = [this.o.x()];
    this.o.series().forEach(function (s) {
      out.push(log ? s.values.map(function (v) { return v != null && v > 0 ? v : null; }) : s.values.slice());
    });
    return out;
  };

  Chart.prototype.build = function () {
    var self = this;
    if (this.u) {
      this.u.destroy();
      this.u = null;
    }
    this.logBox.disabled = !this.canLog();
    this.empty.hidden = this.o.series().some(function (s) { return finiteCount(s.values) > 0; });
    var series = [{ label: this.o.xLabel(), value: function (u, v) { return fmt(v); } }];
    this.o.series().forEach(function (s) {
      series.push({
        label: s.label, stroke: s.stroke, width: s.width || 1.5, dash: s.dash,
        value: function (u, v) { return fmt(v); }, points: { show: false }, spanGaps: false,
      });
    });
    var opts = {
      width: Math.max(300, this.body.clientWidth || 500),
      height: HEIGHT,
      cursor: { sync: { key: "consim-" + (this.o.group || "") }, drag: { x: true, y: false } },
      scales: {
        x: { time: false },
        y: {
          distr: this.log ? 3 : 1,
          range: function (u, min, max) {
            if (min == null || max == null || !isFinite(min) || !isFinite(max)) return self.log ? [0.1, 10] : [0, 1];
            return self.log ? uPlot.rangeLog(min, max, 10, true) : uPlot.rangeNum(min, max, 0.1, true);
          },
        },
      },
      axes: [
        { label: this.o.xLabel(), values: function (u, vs) { return vs.map(fmt); } },
        { size: 72, values: yTicks(this) },
      ],
      series: series,
      hooks: { setSelect: [function (u) { if (u.select.width > 0) self.zoomed = true; }] },
    };
    if (this.o.bands) {
      opts.bands = this.o.bands.map(function (b) { return { series: b, fill: "rgba(9,105,218,0.13)" }; });
    }
    this.u = new uPlot(opts, this.data(), this.body);
    this.u.over.addEventListener("dblclick", function () { self.zoomed = false; });
  };

  // update redraws with the series' current values, keeping a zoom.
  // A plot whose axis the reader has not set follows its default, which
  // a live run's first rows (a zero start) may not allow yet.
  Chart.prototype.update = function () {
    var can = this.canLog();
    var want = (this.userSet ? this.logBox.checked : this.o.defaultLog) && can;
    if (want !== this.log || this.logBox.disabled === can) {
      this.log = want;
      this.logBox.checked = want;
      this.build();
      return;
    }
    this.empty.hidden = this.o.series().some(function (s) { return finiteCount(s.values) > 0; });
    this.u.setData(this.data(), !this.zoomed);
  };

  Chart.prototype.resize = function () {
    if (this.u) this.u.setSize({ width: Math.max(300, this.body.clientWidth || 500), height: HEIGHT });
  };

  state.describe = function () {
    return state.charts.map(function (c) {
      return {
        name: c.o.name, group: c.o.group || "", log: c.log,
        series: c.u.series.slice(1).map(function (s) { return s.label; }),
        points: c.u.data[0].length,
        finite: c.o.series().map(function (s) { return finiteCount(s.values); }),
      };
    });
  };

  function clearCharts() {
    state.charts.forEach(function (c) { c.u.destroy(); });
    state.charts = [];
    chartsEl.textContent = "";
  }

  function select(label, options, value, onChange) {
    var l = el("label", null, label + " ");
    var s = el("select");
    options.forEach(function (o) {
      var opt = el("option", null, o);
      opt.value = o;
      s.appendChild(opt);
    });
    s.value = value;
    s.addEventListener("change", function () { onChange(s.value); });
    l.appendChild(s);
    controls.appendChild(l);
    return s;
  }

  // runView draws one run whose lines are held by column: cols[c] names
  // values[c]. The x axis is round, elapsed_s or msgs.
  function runView(cols, values) {
    var view = { x: "round" };
    var xs = ["round", "elapsed_s", "msgs"].filter(function (c) { return cols.indexOf(c) >= 0; });
    function draw() {
      clearCharts();
      var xi = cols.indexOf(view.x);
      cols.forEach(function (name, c) {
        if (name === "round") return;
        new Chart(chartsEl, {
          name: name,
          xLabel: function () { return view.x; },
          x: function () { return values[xi]; },
          series: function () { return [{ label: name, values: values[c], stroke: COLORS[0] }]; },
          defaultLog: !LINEAR[name] && signs(values[c]).neg === 0,
        });
      });
    }
    select("x axis", xs, view.x, function (v) { view.x = v; draw(); });
    draw();
    return draw;
  }

  function showRun(run) {
    state.rows = run.data.length ? run.data[0].length : 0;
    runView(run.columns, run.data);
  }

  // showSweep draws, for the chosen column, every point's mean on one
  // plot and each point's runs with their mean and min-max band.
  function showSweep(sw) {
    chartsEl.className = "sweep";
    if (sw.missing && sw.missing.length) {
      var m = document.getElementById("missing");
      m.hidden = false;
      m.textContent = "Runs left out (no readable bundle): " + sw.missing.join("; ");
    }
    var cols = sw.columns.filter(function (c) { return c !== "round"; });
    var view = { col: cols.indexOf("consensus_err") >= 0 ? "consensus_err" : cols[0] };
    function draw() {
      clearCharts();
      var c = sw.columns.indexOf(view.col);
      if (c < 0) return;
      var lin = !!LINEAR[view.col];
      new Chart(chartsEl, {
        name: view.col, group: "means", wide: true, title: view.col + ": mean over runs, every grid point",
        xLabel: function () { return "round"; },
        x: function () { return sw.means.rounds; },
        series: function () {
          return sw.means.labels.map(function (l, p) {
            return { label: l, values: sw.means.data[p][c], stroke: COLORS[p % COLORS.length], width: 2 };
          });
        },
        defaultLog: !lin,
      });
      sw.points.forEach(function (pt, p) {
        var n = pt.runs.length;
        new Chart(chartsEl, {
          name: view.col, group: pt.label, title: pt.label + " (" + n + (n === 1 ? " run)" : " runs)"),
          xLabel: function () { return "round"; },
          x: function () { return pt.rounds; },
          series: function () {
            var ss = [
              { label: "max", values: pt.max[c], stroke: "rgba(9,105,218,0.5)", width: 1, dash: [4, 3] },
              { label: "min", values: pt.min[c], stroke: "rgba(9,105,218,0.5)", width: 1, dash: [4, 3] },
              { label: "mean", values: pt.mean[c], stroke: COLORS[p % COLORS.length], width: 2.5 },
            ];
            pt.runs.forEach(function (r) {
              ss.push({ label: r.id + (r.status && r.status !== "ok" ? " (" + r.status + ")" : ""), values: r.data[c], stroke: "rgba(110,119,129,0.55)", width: 1 });
            });
            return ss;
          },
          bands: [[1, 2]],
          defaultLog: !lin,
        });
      });
    }
    select("metric", cols, view.col, function (v) { view.col = v; draw(); });
    draw();
  }

  // showLive fills the charts and the summary from the event stream.
  function showLive(url) {
    var status = document.getElementById("live-status");
    var cols = null, values = null, pending = false, redraw = null;
    function flush() {
      pending = false;
      state.charts.forEach(function (c) { c.update(); });
    }
    function setSummary(pairs) {
      var t = document.getElementById("summary-table");
      t.textContent = "";
      pairs.forEach(function (p) {
        var tr = el("tr");
        tr.appendChild(el("th", null, p[0]));
        tr.appendChild(el("td", null, p[1]));
        t.appendChild(tr);
      });
    }
    var es = new EventSource(url);
    es.addEventListener("open", function () {
      if (!state.ended) status.textContent = "live: the run is in progress";
    });
    // Each connection starts with hello and replays the rows so far.
    es.addEventListener("hello", function () {
      if (values) values.forEach(function (v) { v.length = 0; });
      state.rows = 0;
    });
    es.addEventListener("row", function (e) {
      var row = JSON.parse(e.data);
      if (!cols) {
        cols = Object.keys(row);
        values = cols.map(function () { return []; });
      }
      cols.forEach(function (k, c) { values[c].push(row[k] == null ? null : row[k]); });
      state.rows++;
      if (!redraw) {
        redraw = runView(cols, values);
        return;
      }
      if (!pending) {
        pending = true;
        setTimeout(flush, 250);
      }
    });
    es.addEventListener("summary", function (e) { setSummary(JSON.parse(e.data)); });
    es.addEventListener("end", function (e) {
      state.ended = true;
      setSummary(JSON.parse(e.data));
      status.textContent = "the run has ended; these are its final values";
      status.className = "live ended";
      es.close();
      if (pending) flush();
    });
    es.addEventListener("error", function () {
      if (state.ended) return;
      status.textContent = "connection lost (has the run's process ended?); retrying";
      status.className = "live lost";
    });
    window.addEventListener("beforeunload", function () { es.close(); });
  }

  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { state.charts.forEach(function (c) { c.resize(); }); }, 150);
  });

  if (data.kind === "run") showRun(data.run);
  else if (data.kind === "sweep") showSweep(data.sweep);
  else if (data.kind === "live") showLive(data.events);
  state.ready = true;
})();
