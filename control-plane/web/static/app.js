// Shared behaviour for every page: mobile navigation, copy buttons and tabs.
// Loaded from /static in <head> without `defer` (Content-Security-Policy: script-src 'self'), so
// the `js` class is on <html> before the body is drawn; the rest waits for the document.
document.documentElement.classList.add("js");

document.addEventListener("DOMContentLoaded", function () {
  "use strict";

  // ---- mobile navigation ----
  var header = document.querySelector(".site-header");
  var toggle = document.querySelector(".nav-toggle");
  if (header && toggle) {
    var setOpen = function (open) {
      header.classList.toggle("nav-open", open);
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    };
    toggle.addEventListener("click", function () {
      setOpen(!header.classList.contains("nav-open"));
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && header.classList.contains("nav-open")) {
        setOpen(false);
        toggle.focus();
      }
    });
    window.matchMedia("(min-width: 761px)").addEventListener("change", function (mq) {
      if (mq.matches) setOpen(false);
    });
  }

  // ---- copy buttons: <button class="copy-btn" data-copy="#selector" hidden> ----
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    // Plain-http deployments (no secure context): fall back to a hidden textarea.
    return new Promise(function (resolve, reject) {
      var ta = document.createElement("textarea");
      ta.value = text;
      ta.setAttribute("readonly", "");
      ta.className = "visually-hidden";
      document.body.appendChild(ta);
      ta.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
      document.body.removeChild(ta);
      if (ok) resolve(); else reject(new Error("copy failed"));
    });
  }

  function initCopyButton(btn) {
    btn.hidden = false;
    btn.addEventListener("click", function () {
      var target = document.querySelector(btn.getAttribute("data-copy"));
      if (!target) return;
      var label = btn.getAttribute("data-label") || btn.textContent;
      btn.setAttribute("data-label", label);
      copyText(target.textContent).then(function () {
        btn.textContent = "Copied";
        btn.classList.add("copied");
      }, function () {
        btn.textContent = "Press Ctrl+C";
        var range = document.createRange();
        range.selectNodeContents(target);
        var sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
      }).then(function () {
        window.setTimeout(function () {
          btn.textContent = label;
          btn.classList.remove("copied");
        }, 1600);
      });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll(".copy-btn[data-copy]"), initCopyButton);

  // ---- tabs: [data-tabs] with [role=tab] buttons controlling [role=tabpanel] ----
  Array.prototype.forEach.call(document.querySelectorAll("[data-tabs]"), function (root) {
    var tabs = Array.prototype.slice.call(root.querySelectorAll("[role=tab]"));
    if (!tabs.length) return;
    function select(tab, focus) {
      tabs.forEach(function (t) {
        var on = t === tab;
        t.setAttribute("aria-selected", on ? "true" : "false");
        t.tabIndex = on ? 0 : -1;
        var panel = document.getElementById(t.getAttribute("aria-controls"));
        if (panel) panel.hidden = !on;
      });
      if (focus) tab.focus();
    }
    tabs.forEach(function (tab, i) {
      tab.addEventListener("click", function () { select(tab, false); });
      tab.addEventListener("keydown", function (e) {
        var next = null;
        if (e.key === "ArrowRight") next = tabs[(i + 1) % tabs.length];
        else if (e.key === "ArrowLeft") next = tabs[(i - 1 + tabs.length) % tabs.length];
        else if (e.key === "Home") next = tabs[0];
        else if (e.key === "End") next = tabs[tabs.length - 1];
        if (next) { e.preventDefault(); select(next, true); }
      });
    });
    root.classList.add("tabs-ready");
    var initial = tabs.filter(function (t) { return t.getAttribute("aria-selected") === "true"; })[0] || tabs[0];
    select(initial, false);
  });
});

// ---- people: the header's sign-in link, and confirmations before revoking ----
document.addEventListener("DOMContentLoaded", function () {
  "use strict";
  // A page served the same to everyone cannot know who is signed in; the
  // non-secret vis_signed_in cookie tells the script to offer the dashboard.
  if (/(?:^|;\s*)vis_signed_in=1(?:;|$)/.test(document.cookie)) {
    document.querySelectorAll("[data-signed-in-href]").forEach(function (a) {
      a.setAttribute("href", a.getAttribute("data-signed-in-href"));
      a.textContent = "Dashboard";
    });
  }
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (e) {
      if (!window.confirm(form.getAttribute("data-confirm"))) e.preventDefault();
    });
  });
});
