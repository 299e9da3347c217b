// The playground: vehicle type-ahead, options, and the render with its loading and error states.
// Data comes from <script type="application/json" id="pg-data"> (CSP: script-src 'self'; no inline
// script, no inline style attributes: colours are set through the CSSOM, which CSP allows).
(function () {
  "use strict";

  var dataEl = document.getElementById("pg-data");
  var form = document.getElementById("pg-form");
  if (!dataEl || !form) return;
  var cfg = JSON.parse(dataEl.textContent);

  function byId(id) { return document.getElementById(id); }
  var input = byId("pg-vehicle");
  var list = byId("pg-vehicle-list");
  var current = byId("pg-vehicle-current");
  var makeField = byId("pg-make");
  var modelField = byId("pg-model");
  var yearSelect = byId("pg-year");
  var img = byId("pg-image");
  var stage = byId("pg-stage");
  var loading = byId("pg-loading");
  var elapsedEl = byId("pg-elapsed");
  var errorBox = byId("pg-error");
  var errorTitle = byId("pg-error-title");
  var errorDetail = byId("pg-error-detail");
  var errorMeta = byId("pg-error-meta");
  var retryBtn = byId("pg-retry");
  var caption = byId("pg-caption");
  var openLink = byId("pg-open");
  var curlEl = byId("pg-curl");
  var colorName = byId("pg-color-name");
  var hexInput = byId("pg-hex");
  var finishSelect = byId("pg-finish");
  var customChip = byId("pg-custom-chip");
  var angleInput = byId("pg-angle");
  var angleValue = byId("pg-angle-value");
  var trimBox = byId("pg-trim");
  var shadowBox = byId("pg-shadow");

  // finish goes in the URL only for a custom colour that is not solid.
  // angle replaces view when the "Angle" view is chosen.
  // background and trim only when not the defaults (transparent, false).
  // shadow only when off (shadow=false).
  var PARAMS = ["make", "model", "year", "view", "angle", "color", "finish", "shadow", "size", "format", "background", "trim"];
  var initial = cfg.initial || {};
  var state = {
    make_slug: initial.make_slug,
    make_name: initial.make_name,
    model_slug: initial.model_slug,
    model_name: initial.model_name
  };
  var userChoseYear = false;

  function labelOf(items, slug) {
    for (var i = 0; i < (items || []).length; i++) {
      if (items[i].slug === slug) return items[i];
    }
    return null;
  }

  // ---------- swatches: the server's exact colour for each slug ----------
  Array.prototype.forEach.call(form.querySelectorAll(".swatch[data-hex]"), function (el) {
    var hex = el.getAttribute("data-hex");
    if (/^#[0-9a-fA-F]{3,8}$/.test(hex)) el.style.backgroundColor = hex;
  });

  // ---------- parameters, URLs ----------
  function checked(name) {
    var el = form.querySelector('input[name="' + name + '"]:checked');
    return el ? el.value : "";
  }
  function customHex() {
    var hex = hexInput ? String(hexInput.value || "").toLowerCase() : "";
    return /^#[0-9a-f]{6}$/.test(hex) ? hex : "#1f6feb";
  }
  function params() {
    var color = checked("color");
    var custom = color === "custom";
    var finish = custom && finishSelect ? finishSelect.value : "";
    var view = checked("view");
    var angle = view === "angle" && angleInput ? String(angleInput.value) : "";
    return {
      make: String(state.make_slug || "").toLowerCase(),
      model: String(state.model_slug || "").toLowerCase(),
      year: yearSelect.value,
      view: angle ? "" : view,
      angle: angle,
      color: custom ? customHex() : color,
      finish: finish === "solid" ? "" : finish,
      size: checked("size"),
      format: checked("format"),
      background: checked("background") === "transparent" ? "" : checked("background"),
      trim: trimBox && trimBox.checked ? "true" : "",
      shadow: shadowBox && !shadowBox.checked ? "false" : ""
    };
  }
  function queryString(p) {
    return PARAMS.filter(function (k) { return p[k] !== ""; })
      .map(function (k) { return k + "=" + encodeURIComponent(p[k]); }).join("&");
  }
  function colorLabel(p) {
    var c = labelOf(cfg.colors, p.color);
    if (c) return c.label;
    return p.color + (p.finish ? " " + p.finish : "");
  }
  function chooseCustom() {
    var radio = form.querySelector('input[name="color"][value="custom"]');
    if (radio) radio.checked = true;
    if (customChip) customChip.style.background = customHex();
    if (colorName) colorName.textContent = customHex() + (finishSelect && finishSelect.value !== "solid" ? " " + finishSelect.value : "");
    renderSoon();
  }
  if (hexInput) hexInput.addEventListener("input", chooseCustom);
  function chooseAngle() {
    var radio = form.querySelector('input[name="view"][value="angle"]');
    if (radio) radio.checked = true;
    if (angleValue) angleValue.textContent = angleInput.value + "\u00b0";
    renderSoon();
  }
  if (angleInput) angleInput.addEventListener("input", chooseAngle);
  if (finishSelect) finishSelect.addEventListener("change", function (e) { e.stopPropagation(); chooseCustom(); });
  function imageUrl(p) { return "/images/car.png?" + queryString(p); }
  function curlFor(p) {
    return 'curl -H "Authorization: Bearer $VIS_KEY" -o car.' + p.format + " \\\n" +
      '  "' + cfg.base_url + "/api/v1/images/car?" + queryString(p) + '"';
  }
  function describe(p) {
    var parts = [p.year + " " + state.make_name + " " + state.model_name];
    var v = labelOf(cfg.views, p.view); if (v) parts.push(v.label);
    if (p.angle !== "") parts.push(p.angle + "\u00b0");
    parts.push(colorLabel(p));
    var s = labelOf(cfg.sizes, p.size); if (s) parts.push(s.px + " px");
    var f = labelOf(cfg.formats, p.format); if (f) parts.push(f.label);
    if (p.background) parts.push(p.background + " background");
    if (p.trim) parts.push("cropped");
    if (p.shadow) parts.push("no shadow");
    return parts.join(" \u00b7 ");
  }

  // ---------- the render ----------
  var currentUrl = img.getAttribute("src");
  var renderSeq = 0;
  var loadingTimer = null;
  var elapsedTimer = null;
  var retryTimer = null;
  var startedAt = 0;

  function setLoading(on) {
    window.clearTimeout(loadingTimer);
    window.clearInterval(elapsedTimer);
    stage.classList.toggle("is-loading", on);
    stage.setAttribute("aria-busy", on ? "true" : "false");
    if (!on) { loading.hidden = true; return; }
    startedAt = Date.now();
    elapsedEl.textContent = "\u2026";
    // A cached image usually arrives at once: only show the spinner when it does not.
    loadingTimer = window.setTimeout(function () { loading.hidden = false; }, 150);
    elapsedTimer = window.setInterval(function () {
      var s = Math.round((Date.now() - startedAt) / 1000);
      if (s >= 2) elapsedEl.textContent = "\u2026 " + s + " s";
    }, 1000);
  }

  function clearError() {
    window.clearInterval(retryTimer);
    errorBox.hidden = true;
    stage.classList.remove("has-error");
    retryBtn.disabled = false;
    retryBtn.textContent = "Try again";
  }

  function showError(title, detail, meta, retryAfterSeconds) {
    setLoading(false);
    errorTitle.textContent = title;
    errorDetail.textContent = detail || "";
    errorDetail.hidden = !detail;
    errorMeta.textContent = meta || "";
    errorMeta.hidden = !meta;
    stage.classList.add("has-error");
    errorBox.hidden = false;
    window.clearInterval(retryTimer);
    retryBtn.disabled = false;
    retryBtn.textContent = "Try again";
    if (retryAfterSeconds > 0) {
      var until = Date.now() + retryAfterSeconds * 1000;
      var tick = function () {
        var left = Math.ceil((until - Date.now()) / 1000);
        if (left <= 0) {
          window.clearInterval(retryTimer);
          retryBtn.disabled = false;
          retryBtn.textContent = "Try again";
        } else {
          retryBtn.disabled = true;
          retryBtn.textContent = "Try again in " + left + " s";
        }
      };
      tick();
      retryTimer = window.setInterval(tick, 1000);
    }
  }

  function parseRetryAfter(value) {
    if (!value) return 0;
    var n = parseInt(value, 10);
    if (String(n) === value.trim()) return Math.max(0, n);
    var when = Date.parse(value);
    return isNaN(when) ? 0 : Math.max(0, Math.ceil((when - Date.now()) / 1000));
  }

  var FRIENDLY = {
    400: "These options don\u2019t make an image",
    401: "Your playground session has ended",
    403: "Your playground session has ended",
    404: "Not in the catalog",
    410: "This image is no longer available",
    429: "Slow down a little",
    500: "Something went wrong on our side",
    502: "The renderer did not answer",
    503: "The renderer is busy",
    504: "The render took too long"
  };

  function showProblem(status, problem, retryAfterHeader) {
    var retryAfter = parseRetryAfter(retryAfterHeader);
    var title = FRIENDLY[status] || problem.title || ("The service answered " + status);
    var detail = problem.detail || problem.title || "";
    if (status === 401 || status === 403) {
      detail = (detail ? detail + " " : "") + "Reload the page to start a new one.";
    }
    if (retryAfter > 0) {
      detail = (detail ? detail + " " : "") + "You can try again in " + retryAfter + " s.";
    }
    var meta = ["HTTP " + status];
    if (problem.title && problem.title !== title) meta.push(problem.title);
    if (problem.request_id) meta.push("request " + problem.request_id);
    showError(title, detail, meta.join(" \u00b7 "), retryAfter);
  }

  // The <img> only says "error": ask the same URL again for the problem+json document.
  function diagnose(url, seq) {
    fetch(url, { credentials: "same-origin", cache: "no-store" }).then(function (res) {
      if (seq !== renderSeq) return null;
      if (res.ok) {
        showError("The image could not be shown",
          "The service sent the image but your browser could not display it. Try again, or open the image URL.",
          "HTTP " + res.status, 0);
        return null;
      }
      var type = res.headers.get("Content-Type") || "";
      var retryAfter = res.headers.get("Retry-After");
      if (type.indexOf("json") !== -1) {
        return res.json().then(function (problem) {
          if (seq === renderSeq) showProblem(res.status, problem || {}, retryAfter);
        }, function () {
          if (seq === renderSeq) showProblem(res.status, {}, retryAfter);
        });
      }
      showProblem(res.status, {}, retryAfter);
      return null;
    }).catch(function () {
      if (seq !== renderSeq) return;
      showError("Could not reach the service", "Check your connection and try again.", "", 0);
    });
  }

  img.addEventListener("load", function () {
    if (img.getAttribute("src") !== currentUrl) return;
    setLoading(false);
  });
  img.addEventListener("error", function () {
    if (!img.getAttribute("src") || img.getAttribute("src") !== currentUrl) return;
    diagnose(currentUrl, renderSeq);
  });

  function updateMeta(p, url) {
    caption.textContent = describe(p);
    openLink.href = url;
    curlEl.textContent = curlFor(p);
    img.alt = p.year + " " + state.make_name + " " + state.model_name + ", " +
      (p.angle !== "" ? "at " + p.angle + "\u00b0" : ((labelOf(cfg.views, p.view) || {}).label || p.view)) + ", " +
      colorLabel(p);
  }

  // ---------- a 360° spin: the 24 angles GET /api/v1/images/spin assembles ----------
  var spinBtn = byId("pg-spin");
  var spinTimer = null;
  function stopSpin() {
    if (spinTimer) { window.clearInterval(spinTimer); spinTimer = null; }
    if (spinBtn) spinBtn.disabled = false;
  }
  function spinCurl(p) {
    var q = {};
    for (var k in p) q[k] = p[k];
    q.view = ""; q.angle = ""; q.background = ""; q.trim = "";
    q.size = q.size === "medium" || q.size === "large" ? "small" : q.size;
    q.format = "webp";
    return 'curl -H "Authorization: Bearer $VIS_KEY" -o spin.webp \\\n' +
      '  "' + cfg.base_url + "/api/v1/images/spin?" + queryString(q) + '"';
  }
  function playSpin() {
    if (!state.make_slug || !state.model_slug) return;
    stopSpin();
    var p = params();
    var urls = [];
    for (var a = 0; a < 360; a += 15) {
      var q = {};
      for (var k in p) q[k] = p[k];
      q.view = ""; q.angle = String(a);
      urls.push(imageUrl(q));
    }
    renderSeq += 1;
    var seq = renderSeq;
    clearError();
    setLoading(true);
    spinBtn.disabled = true;
    var loaded = 0, next = 0, failed = false;
    function loadNext() {
      if (failed || seq !== renderSeq || next >= urls.length) return;
      var i = next++;
      var frame = new Image();
      frame.onload = function () {
        if (seq !== renderSeq) return;
        loaded += 1;
        elapsedEl.textContent = " " + loaded + " of " + urls.length;
        if (loaded === urls.length) play(); else loadNext();
      };
      frame.onerror = function () {
        if (failed || seq !== renderSeq) return;
        failed = true;
        stopSpin();
        diagnose(urls[i], seq);
      };
      frame.src = urls[i];
    }
    // Four at a time: the frames of a spin go to the renderer together.
    for (var n = 0; n < 4; n++) loadNext();
    function play() {
      setLoading(false);
      spinBtn.disabled = false;
      caption.textContent = describe(p) + " \u00b7 360\u00b0 spin";
      curlEl.textContent = spinCurl(p);
      var reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      var f = 0, shown = 0;
      spinTimer = window.setInterval(function () {
        if (seq !== renderSeq) { stopSpin(); return; }
        currentUrl = urls[f];
        img.setAttribute("src", urls[f]);
        if (angleInput) { angleInput.value = String(f * 15); angleValue.textContent = f * 15 + "\u00b0"; }
        f = (f + 1) % urls.length;
        shown += 1;
        if (shown > urls.length * (reduce ? 1 : 2)) stopSpin();
      }, reduce ? 250 : 83);
    }
  }
  if (spinBtn) spinBtn.addEventListener("click", playSpin);

  function render(force) {
    if (!state.make_slug || !state.model_slug) return;
    stopSpin();
    var p = params();
    var url = imageUrl(p);
    updateMeta(p, url);
    if (url === currentUrl && !force && !stage.classList.contains("has-error")) return;
    currentUrl = url;
    renderSeq += 1;
    clearError();
    setLoading(true);
    // Setting the same URL again (a retry) asks for it again; a failed answer is not cached.
    img.setAttribute("src", url);
  }

  var renderTimer = null;
  function renderSoon() {
    window.clearTimeout(renderTimer);
    renderTimer = window.setTimeout(function () { render(false); }, 250);
  }

  retryBtn.addEventListener("click", function () { render(true); });

  form.addEventListener("change", function (e) {
    var name = e.target && e.target.name;
    if (name === "color" && e.target.value === "custom") {
      chooseCustom();
      return;
    }
    if (name === "color" && colorName) {
      colorName.textContent = e.target.getAttribute("data-label") || e.target.value;
    }
    if (name === "year") userChoseYear = true;
    if (name === "year" || name === "view" || name === "color" || name === "size" || name === "format" ||
        name === "background" || name === "trim" || name === "shadow") {
      renderSoon();
    }
  });

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    if (!list.hidden && active >= 0) { choose(options[active]); return; }
    closeList();
    window.clearTimeout(renderTimer);
    render(true);
  });

  // ---------- years ----------
  function applyYears(years, keep) {
    if (!years || !years.length) return;
    var sorted = years.slice().sort(function (a, b) { return b - a; });
    var want = parseInt(keep, 10);
    var selected = sorted.indexOf(want) !== -1 ? want : sorted[0];
    yearSelect.textContent = "";
    sorted.forEach(function (y) {
      var o = document.createElement("option");
      o.value = String(y);
      o.textContent = String(y);
      if (y === selected) o.selected = true;
      yearSelect.appendChild(o);
    });
  }

  function getJson(url, signal) {
    return fetch(url, { credentials: "same-origin", signal: signal }).then(function (res) {
      if (!res.ok) throw new Error("HTTP " + res.status);
      return res.json();
    });
  }

  function loadYears(makeSlug, modelSlug) {
    return getJson("/api/v1/vehicles?make=" + encodeURIComponent(makeSlug) +
      "&model=" + encodeURIComponent(modelSlug)).then(function (body) {
      return (body && body.data && body.data.years) || [];
    });
  }

  // ---------- type-ahead (ARIA 1.2 combobox with a listbox popup) ----------
  var options = [];
  var active = -1;
  var searchTimer = null;
  var searchCtl = null;
  var searchSeq = 0;

  function yearRange(years) {
    if (!years || !years.length) return "";
    var lo = Math.min.apply(null, years);
    var hi = Math.max.apply(null, years);
    return lo === hi ? String(lo) : lo + "\u2013" + hi;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  function openList() {
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
  }

  function closeList() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }

  function setActive(i) {
    var items = list.querySelectorAll("[role=option]");
    if (!items.length) return;
    if (i < 0) i = items.length - 1;
    if (i >= items.length) i = 0;
    active = i;
    Array.prototype.forEach.call(items, function (item, j) {
      item.setAttribute("aria-selected", j === i ? "true" : "false");
    });
    input.setAttribute("aria-activedescendant", items[i].id);
    var item = items[i];
    if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop - 6;
    else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight + 6;
    }
  }

  function showOptions(opts, emptyText) {
    options = opts;
    active = -1;
    list.textContent = "";
    input.removeAttribute("aria-activedescendant");
    if (!opts.length) {
      list.appendChild(el("li", "combo-empty", emptyText || "No matching make or model."));
      openList();
      return;
    }
    opts.forEach(function (o, i) {
      var li = el("li", "combo-option");
      li.id = "pg-vehicle-opt-" + i;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      var main = el("span", "combo-main");
      if (o.kind === "make") {
        main.appendChild(el("span", "combo-model", o.make_name));
        main.appendChild(el("span", "combo-kind", "Make"));
        li.appendChild(main);
        li.appendChild(el("span", "combo-meta", "Browse models"));
      } else {
        main.appendChild(el("span", "combo-make", o.make_name));
        main.appendChild(el("span", "combo-model", o.model_name));
        li.appendChild(main);
        li.appendChild(el("span", "combo-meta", yearRange(o.years)));
        if (o.vehicle_type) li.title = o.vehicle_type;
      }
      li.addEventListener("mousedown", function (e) { e.preventDefault(); });
      li.addEventListener("click", function () { choose(o); });
      list.appendChild(li);
    });
    openList();
  }

  function fetchOptions(url, toOptions, emptyText) {
    if (searchCtl) searchCtl.abort();
    searchCtl = typeof AbortController === "function" ? new AbortController() : null;
    var seq = ++searchSeq;
    getJson(url, searchCtl ? searchCtl.signal : undefined).then(function (body) {
      if (seq !== searchSeq || document.activeElement !== input) return;
      showOptions(toOptions((body && body.data) || {}), emptyText);
    }, function (err) {
      if (seq !== searchSeq || (err && err.name === "AbortError")) return;
      if (document.activeElement === input) showOptions([], "Search is not available right now.");
    });
  }

  function yearSuffix() { return userChoseYear ? "&year=" + encodeURIComponent(yearSelect.value) : ""; }

  function search(q) {
    var emptyText = userChoseYear
      ? "No make or model matches \u201c" + q + "\u201d in " + yearSelect.value + "."
      : "No make or model matches \u201c" + q + "\u201d.";
    fetchOptions("/api/v1/vehicles?q=" + encodeURIComponent(q.slice(0, 200)) + "&limit=8" + yearSuffix(),
      function (data) { return data.results || []; }, emptyText);
  }

  function browseMake(make) {
    fetchOptions("/api/v1/vehicles?make=" + encodeURIComponent(make.make_slug) + yearSuffix(), function (data) {
      var m = data.make || { name: make.make_name, slug: make.make_slug };
      return (data.models || []).map(function (model) {
        return {
          kind: "model",
          make_name: m.name,
          make_slug: m.slug,
          model_name: model.name,
          model_slug: model.slug,
          vehicle_type: model.vehicle_type,
          years: model.years || null
        };
      });
    }, "No models of " + make.make_name + (userChoseYear ? " in " + yearSelect.value : "") + ".");
  }

  function choose(o) {
    if (!o) return;
    window.clearTimeout(searchTimer);
    if (o.kind === "make") {
      input.value = o.make_name + " ";
      input.focus();
      browseMake(o);
      return;
    }
    closeList();
    state.make_slug = o.make_slug;
    state.make_name = o.make_name;
    state.model_slug = o.model_slug;
    state.model_name = o.model_name;
    makeField.value = o.make_slug;
    modelField.value = o.model_slug;
    input.value = o.make_name + " " + o.model_name;
    current.textContent = input.value;
    var keep = userChoseYear ? yearSelect.value : null;
    if (o.years && o.years.length) {
      applyYears(o.years, keep);
      render(false);
    } else {
      loadYears(o.make_slug, o.model_slug).then(function (years) {
        applyYears(years, keep);
      }, function () { /* keep the full list */ }).then(function () { render(false); });
    }
  }

  function selectionText() { return state.make_name + " " + state.model_name; }

  input.addEventListener("input", function () {
    window.clearTimeout(searchTimer);
    var q = input.value.trim();
    if (!q) {
      if (searchCtl) searchCtl.abort();
      searchSeq += 1;
      closeList();
      return;
    }
    searchTimer = window.setTimeout(function () { search(q); }, 200);
  });

  input.addEventListener("keydown", function (e) {
    var open = !list.hidden;
    switch (e.key) {
      case "ArrowDown":
        e.preventDefault();
        if (open) setActive(active + 1);
        else if (input.value.trim()) search(input.value.trim());
        break;
      case "ArrowUp":
        if (open) { e.preventDefault(); setActive(active - 1); }
        break;
      case "Enter":
        if (open && options.length) {
          e.preventDefault();
          choose(options[active >= 0 ? active : 0]);
        } else if (open) {
          e.preventDefault();
        }
        break;
      case "Escape":
        if (open) { e.preventDefault(); closeList(); }
        else if (input.value !== selectionText()) { e.preventDefault(); input.value = selectionText(); }
        break;
      case "Tab":
        closeList();
        break;
      default:
        break;
    }
  });

  var playground = form.parentNode;
  input.addEventListener("focus", function () {
    playground.classList.add("is-typing");
    if (input.value === selectionText()) input.select();
  });

  input.addEventListener("blur", function () {
    window.setTimeout(function () {
      if (document.activeElement === input) return;
      playground.classList.remove("is-typing");
      closeList();
      if (!input.value.trim()) input.value = selectionText();
    }, 150);
  });

  // ---------- start ----------
  // The initial image is in the HTML (it loads without JavaScript too); pick up its state.
  (function start() {
    var p = params();
    updateMeta(p, imageUrl(p));
    if (imageUrl(p) !== currentUrl) {
      render(false);
    } else if (img.complete) {
      if (!img.naturalWidth) diagnose(currentUrl, renderSeq);
    } else {
      setLoading(true);
    }
    var make = state.make_slug;
    var model = state.model_slug;
    if (make && model) {
      loadYears(make, model).then(function (years) {
        if (!years.length || state.make_slug !== make || state.model_slug !== model) return;
        applyYears(years, yearSelect.value);
        render(false);
      }, function () { /* keep the full list */ });
    }
  })();
})();
