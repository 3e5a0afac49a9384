(function () {
  "use strict";
  var doc = document;
  var selects = ["kind", "seam", "verdict"].map(function (name) {
    return doc.getElementById("filter-" + name);
  });
  var count = doc.getElementById("filter-count");
  var findings = Array.prototype.slice.call(doc.querySelectorAll("details.finding"));
  var markers = Array.prototype.slice.call(doc.querySelectorAll("svg .marker"));

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
    markers.forEach(function (el) {
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
      }
    }
    var target = el.tagName === "DETAILS" ? el.querySelector("summary") : el;
    target.focus();
    el.scrollIntoView({ block: "center" });
    return true;
  }

  selects.forEach(function (s) { s.addEventListener("change", apply); });
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
  window.addEventListener("hashchange", function () { reveal(location.hash.slice(1)); });
  apply();
  if (location.hash) {
    reveal(location.hash.slice(1));
  }
})();
