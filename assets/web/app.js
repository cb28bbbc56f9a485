// MetaClaw web page: small progressive enhancements. Every page works
// without this file.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  // Ask before destructive actions (buttons with data-confirm).
  document.querySelectorAll("button[data-confirm]").forEach(function (b) {
    b.addEventListener("click", function (ev) {
      if (!window.confirm(b.getAttribute("data-confirm"))) {
        ev.preventDefault();
      }
    });
  });
  // Setup: choosing a provider fills in its base URL and model.
  document.querySelectorAll("select[data-preset-target]").forEach(function (sel) {
    sel.addEventListener("change", function () {
      var opt = sel.options[sel.selectedIndex];
      var form = sel.form;
      var base = form.querySelector("[data-preset=base]");
      var model = form.querySelector("[data-preset=model]");
      if (opt.dataset.base !== undefined && base) { base.value = opt.dataset.base; }
      if (opt.dataset.model !== undefined && model) { model.value = opt.dataset.model; }
    });
  });
});
