// The spin viewer: turns a sprite sheet of GET /api/v1/images/spin (layout=sprite) into a
// 360° view a visitor drags, swipes or turns with the arrow keys. No dependencies, no network
// of its own: it shows the sheet the page already names.
//
//   <div data-vis-spin data-src="SHEET_URL" data-alt="Red 2019 Toyota Camry saloon, 360° spin"></div>
//   <script src="https://YOUR-VIS-HOST/static/spin.js" defer></script>
//
// Optional attributes: data-columns (6), data-frames (24), data-autoplay ("true": one slow turn
// until the visitor touches it). The sheet's frames run row by row from the top left, angle 0
// (the nose) first, 15° apart, as the spin's manifest says.
(function () {
  "use strict";

  function setup(el) {
    if (el.getAttribute("data-vis-spin-ready")) return;
    el.setAttribute("data-vis-spin-ready", "1");
    var src = el.getAttribute("data-src");
    if (!src) return;
    var columns = parseInt(el.getAttribute("data-columns") || "6", 10) || 6;
    var frames = parseInt(el.getAttribute("data-frames") || "24", 10) || 24;
    var rows = Math.ceil(frames / columns);
    var frame = 0;

    el.setAttribute("role", "img");
    el.setAttribute("aria-roledescription", "360° view");
    el.setAttribute("aria-label", el.getAttribute("data-alt") || "360° view of the vehicle");
    el.tabIndex = 0;
    el.style.backgroundImage = "url(" + JSON.stringify(src) + ")";
    el.style.backgroundRepeat = "no-repeat";
    el.style.backgroundSize = (columns * 100) + "% " + (rows * 100) + "%";
    el.style.touchAction = "pan-y";
    el.style.cursor = "grab";
    if (!el.style.aspectRatio) el.style.aspectRatio = "1 / 1";

    function show(n) {
      frame = ((n % frames) + frames) % frames;
      var col = frame % columns;
      var row = Math.floor(frame / columns);
      var x = columns > 1 ? (col / (columns - 1)) * 100 : 0;
      var y = rows > 1 ? (row / (rows - 1)) * 100 : 0;
      el.style.backgroundPosition = x + "% " + y + "%";
      el.setAttribute("data-frame", String(frame));
    }
    show(0);

    var autoplay = el.getAttribute("data-autoplay") === "true";
    var timer = null;
    function stop() { if (timer) { window.clearInterval(timer); timer = null; } }
    if (autoplay && !(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches)) {
      var turned = 0;
      timer = window.setInterval(function () {
        show(frame - 1);
        if (++turned >= frames) stop();
      }, 120);
    }

    // Dragging: one frame per 1/frames of the element's width, so a drag across it is a turn.
    var startX = null;
    var startFrame = 0;
    el.addEventListener("pointerdown", function (e) {
      stop();
      startX = e.clientX;
      startFrame = frame;
      el.style.cursor = "grabbing";
      if (el.setPointerCapture) el.setPointerCapture(e.pointerId);
    });
    el.addEventListener("pointermove", function (e) {
      if (startX === null) return;
      var step = el.clientWidth / frames || 10;
      // Dragging right turns the vehicle so its nose follows the pointer.
      show(startFrame - Math.round((e.clientX - startX) / step));
    });
    function release() { startX = null; el.style.cursor = "grab"; }
    el.addEventListener("pointerup", release);
    el.addEventListener("pointercancel", release);
    el.addEventListener("keydown", function (e) {
      if (e.key === "ArrowLeft") { stop(); show(frame + 1); e.preventDefault(); }
      if (e.key === "ArrowRight") { stop(); show(frame - 1); e.preventDefault(); }
      if (e.key === "Home") { stop(); show(0); e.preventDefault(); }
    });
  }

  function scan() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-vis-spin]"), setup);
  }
  window.visSpin = { scan: scan, setup: setup };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", scan);
  } else {
    scan();
  }
})();
