(function () {
  "use strict";
  var doc = document;
  var selects = ["kind", "seam", "verdict"].map(function (name) {
    return doc.getElementById("filter-" + name);
  });
  var count = doc.getElementById("filter-count");
  var findings = Array.prototype.slice.call(doc.querySelectorAll("details.finding"));

  function matches(el) {
    return selects.every(function (s) {
      var attr = s.name;
      return s.value === "" || el.getAttribute("data-" + attr) === s.value;
    });
  }

  function apply() {
    var shown = 0;
    findings.forEach(function (el) {
      var ok = matches(el);
      el.parentElement.hidden = !ok;
      if (ok) {
        shown++;
      }
    });
    Array.prototype.forEach.call(doc.querySelectorAll("svg .marker"), function (el) {
      var ok = matches(el);
      el.classList.toggle("filtered", !ok);
      if (ok) {
        el.removeAttribute("tabindex");
      } else {
        el.setAttribute("tabindex", "-1");
      }
    });
    count.textContent = shown + " of " + findings.length + " findings shown";
  }

  // draw puts in place what a page of many runs keeps in templates until
  // its run is opened: the timeline and the ledgers.
  function draw(run) {
    var lazy = run.querySelectorAll(":scope > .run-body > template.lazy");
    if (lazy.length === 0) {
      return;
    }
    Array.prototype.forEach.call(lazy, function (t) { t.replaceWith(t.content); });
    apply();
  }

  // reveal opens a finding and every section around it, clearing the
  // filters first when they hide it, and moves the focus to it.
  function reveal(id) {
    var el = id ? doc.getElementById(id) : null;
    if (!el) {
      return false;
    }
    if (el.classList.contains("finding") && !matches(el)) {
      selects.forEach(function (s) { s.value = ""; });
      apply();
    }
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") {
        p.open = true;
        if (p.classList.contains("run")) {
          draw(p);
        }
      }
    }
    var target = el.tagName === "DETAILS" ? el.querySelector("summary") : el;
    target.focus();
    el.scrollIntoView({ block: "center" });
    return true;
  }

  selects.forEach(function (s) { s.addEventListener("change", apply); });
  // toggle does not bubble; it is caught on its way down.
  doc.addEventListener("toggle", function (ev) {
    var d = ev.target;
    if (d.classList && d.classList.contains("run") && d.open) {
      draw(d);
    }
  }, true);
  doc.addEventListener("click", function (ev) {
    var a = ev.target.closest ? ev.target.closest("a") : null;
    if (!a) {
      return;
    }
    var href = a.getAttribute("href") || "";
    if (href.charAt(0) === "#" && reveal(href.slice(1))) {
      ev.preventDefault();
      if (history.replaceState) {
        history.replaceState(null, "", href);
      }
    }
  });
  // A marker is a link in an SVG drawing, which Enter does not follow in
  // every browser; the keyboard gets what a click gets. The focus moves
  // at once, so the rest of that key press (keypress for Enter, keyup for
  // Space) would reach the finding's summary and toggle it shut: it is
  // swallowed.
  var swallow = null;
  doc.addEventListener("keydown", function (ev) {
    var a = ev.target;
    if ((ev.key === "Enter" || ev.key === " ") && a.classList && a.classList.contains("marker")) {
      ev.preventDefault();
      swallow = ev.key;
      reveal((a.getAttribute("href") || "").slice(1));
    }
  });
  doc.addEventListener("keypress", function (ev) {
    if (swallow !== null) {
      ev.preventDefault();
    }
  }, true);
  doc.addEventListener("keyup", function (ev) {
    if (swallow !== null && ev.key === swallow) {
      ev.preventDefault();
      swallow = null;
    }
  }, true);
  window.addEventListener("hashchange", function () { reveal(location.hash.slice(1)); });
  apply();
  // The page's script ran: what a test (or a curious reader) checks
  // before trusting the filters.
  doc.documentElement.setAttribute("data-ready", "");
  if (location.hash) {
    reveal(location.hash.slice(1));
  }
})();
