// The operator page (/dashboard/operator): the server renders every number;
// this script refreshes them every 5 s from /dashboard/operator.json (the
// same FarmStatus `control-plane status --json` is made from). It writes text
// and attributes only, never HTML. The formats mirror http/operator.rs.
(function () {
  "use strict";
  var PERIOD_MS = 5000;

  function thousands(n) {
    return Number(n).toLocaleString("en-US");
  }

  function tenths(ms, unit) {
    var t = Math.floor((ms + unit / 20) / (unit / 10));
    return Math.floor(t / 10) + "." + (t % 10);
  }

  function duration(ms) {
    if (ms === null || ms === undefined) return "\u2013";
    if (ms < 1000) return Math.max(ms, 0) + " ms";
    if (ms < 59950) return tenths(ms, 1000) + " s";
    return tenths(ms, 60000) + " min";
  }

  function ago(now, then) {
    if (then === null || then === undefined) return "never";
    var s = Math.max(Math.floor((now - then) / 1000), 0);
    if (s < 60) return s + " s ago";
    if (s < 3600) return Math.floor(s / 60) + " min ago";
    if (s < 86400) return Math.floor(s / 3600) + " h ago";
    return Math.floor(s / 86400) + " d ago";
  }

  function pct(part, whole) {
    if (whole <= 0) return 0;
    return Math.round(Math.min(Math.max(part / whole * 100, 0), 100) * 10) / 10;
  }

  function at(doc, path) {
    return path.split(".").reduce(function (v, k) { return v == null ? v : v[k]; }, doc);
  }

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function cell(text, className) {
    return el("td", className, text);
  }

  function badge(text, kind) {
    return el("span", "badge " + kind, text);
  }

  var SVG = "http://www.w3.org/2000/svg";
  function rect(className, widthPct) {
    var r = document.createElementNS(SVG, "rect");
    r.setAttribute("class", className);
    r.setAttribute("width", widthPct + "%");
    r.setAttribute("height", "10");
    r.setAttribute("rx", "3");
    return r;
  }

  // A table body, or its "none" line when there are no rows.
  function fill(name, rows) {
    var body = document.getElementById(name + "-rows");
    var table = document.getElementById(name + "-table");
    var empty = document.getElementById(name + "-empty");
    if (!body || !table || !empty) return;
    while (body.firstChild) body.removeChild(body.firstChild);
    rows.forEach(function (tr) { body.appendChild(tr); });
    table.hidden = rows.length === 0;
    empty.hidden = rows.length !== 0;
  }

  function nodeRow(n, now) {
    var tr = document.createElement("tr");
    var name = cell("");
    name.appendChild(el("strong", null, n.name));
    tr.appendChild(name);
    var state = cell("", "nowrap");
    if (n.state === "removed") state.appendChild(badge("removed", "badge-off"));
    else if (n.state === "draining") state.appendChild(badge("draining", "badge-warn"));
    else state.appendChild(badge("active", "badge-on"));
    if (n.state !== "removed" && !n.up) {
      state.appendChild(document.createTextNode(" "));
      state.appendChild(badge("offline", "badge-danger"));
    }
    tr.appendChild(state);
    tr.appendChild(cell(thousands(n.slots), "num"));
    tr.appendChild(cell(thousands(n.in_flight), "num"));
    tr.appendChild(cell(ago(now, n.last_heartbeat), "small muted nowrap"));
    tr.appendChild(cell(thousands(n.renders_today), "num"));
    tr.appendChild(cell(thousands(n.failures_total), "num"));
    tr.appendChild(cell(n.adapter || "\u2013", "small"));
    return tr;
  }

  function timesRow(t, slowest) {
    var tr = document.createElement("tr");
    var name = cell("");
    name.appendChild(el("strong", null, t.node));
    tr.appendChild(name);
    tr.appendChild(cell(thousands(t.renders), "num"));
    tr.appendChild(cell(thousands(t.failures), "num"));
    tr.appendChild(cell(duration(t.p50_ms), "num"));
    tr.appendChild(cell(duration(t.p95_ms), "num"));
    var bar = cell("", "farm-bar-col");
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("class", "spread");
    svg.setAttribute("width", "100%");
    svg.setAttribute("height", "10");
    svg.setAttribute("aria-hidden", "true");
    svg.appendChild(rect("spread-p95", pct(t.p95_ms || 0, slowest)));
    svg.appendChild(rect("spread-p50", pct(t.p50_ms || 0, slowest)));
    bar.appendChild(svg);
    tr.appendChild(bar);
    return tr;
  }

  function show(farm) {
    document.querySelectorAll("[data-farm]").forEach(function (e) {
      var v = at(farm, e.getAttribute("data-farm"));
      if (v === undefined || v === null) return;
      e.textContent = typeof v === "number" ? thousands(v) : String(v);
    });
    var c = farm.capacity, b = farm.budget;
    var slots = document.getElementById("slots-meter");
    if (slots) slots.setAttribute("width", pct(c.node_slots_busy, c.node_slots) + "%");
    var budget = document.getElementById("budget-meter");
    if (budget) {
      var used = pct(b.used, b.daily);
      budget.setAttribute("width", used + "%");
      budget.classList.toggle("meter-hot", used >= 90);
    }
    var renders = 0, failures = 0, slowest = 0;
    farm.render_times_today.forEach(function (t) {
      renders += t.renders;
      if (t.p95_ms !== null && t.p95_ms > slowest) slowest = t.p95_ms;
    });
    var causes = Object.keys(farm.failures_today_by_cause).sort();
    causes.forEach(function (k) { failures += farm.failures_today_by_cause[k]; });
    document.getElementById("renders-today").textContent = thousands(renders);
    document.getElementById("failures-today").textContent = thousands(failures);
    var line = document.getElementById("failures-today-line");
    line.className = failures > 0 ? "farm-bad" : "muted";

    fill("nodes", farm.nodes.map(function (n) { return nodeRow(n, farm.generated_at); }));
    fill("times", farm.render_times_today.map(function (t) { return timesRow(t, slowest); }));
    fill("causes", causes.map(function (k) {
      var tr = document.createElement("tr");
      tr.appendChild(cell(k, "farm-cause"));
      tr.appendChild(cell(thousands(farm.failures_today_by_cause[k]), "num"));
      return tr;
    }));
  }

  function clock(ms) {
    var d = new Date(ms);
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    return two(d.getUTCHours()) + ":" + two(d.getUTCMinutes()) + ":" + two(d.getUTCSeconds()) + " UTC";
  }

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("farm");
    var live = document.getElementById("farm-live");
    var updated = document.getElementById("farm-updated");
    if (!root || !live || !updated) return;
    var source = root.getAttribute("data-source");
    var timer = null;
    var busy = false;

    function status(state, text) {
      live.setAttribute("data-state", state);
      updated.textContent = text;
    }

    function refresh() {
      timer = null;
      if (busy) return;
      busy = true;
      fetch(source, { credentials: "same-origin", headers: { "Accept": "application/json" } })
        .then(function (r) {
          busy = false;
          if (r.status === 401 || r.status === 403) {
            status("stopped", "Signed out: reload the page");
            return null;
          }
          if (!r.ok) throw new Error("HTTP " + r.status);
          return r.json();
        })
        .then(function (farm) {
          if (!farm) return;
          show(farm);
          status("live", "Live \u00b7 updated " + clock(farm.generated_at));
          schedule();
        })
        .catch(function () {
          busy = false;
          status("stale", "Not updating: retrying");
          schedule();
        });
    }

    function schedule() {
      if (timer === null && !document.hidden) timer = window.setTimeout(refresh, PERIOD_MS);
    }

    // A hidden tab stops asking; it catches up when shown again.
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) {
        if (timer !== null) window.clearTimeout(timer);
        timer = null;
      } else if (timer === null) {
        refresh();
      }
    });
    status("live", "Live \u00b7 " + updated.textContent.replace(/^As of /, "as of "));
    schedule();
  });
})();
