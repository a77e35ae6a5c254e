// Keyboard shortcuts: each key sets a form control marked with data-key; the forms work without this file.
(function () {
  "use strict";

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" ||
      (tag === "INPUT" && !/^(radio|checkbox|submit|button|hidden)$/i.test(target.type)) ||
      (target && target.isContentEditable);
  }

  function toggle(group) {
    // a yes/no pair: unset or no -> yes, yes -> no
    var yes = group.querySelector('input[value="yes"]');
    var no = group.querySelector('input[value="no"]');
    if (yes && no) {
      if (yes.checked) { no.checked = true; } else { yes.checked = true; }
    }
  }

  function submitMain() {
    var form = document.querySelector("form[data-main]");
    if (!form) { return; }
    if (form.requestSubmit) { form.requestSubmit(); } else { form.submit(); }
  }

  // Buttons that fill the form: every criterion holds (data-all-yes), or an answer shown on the page
  // taken into the answer box (data-fill names the box, data-value holds the answer).
  document.addEventListener("click", function (event) {
    var button = event.target && event.target.closest && event.target.closest("button[data-all-yes], button[data-fill]");
    if (!button) { return; }
    event.preventDefault();
    if (button.hasAttribute("data-all-yes")) {
      var prefix = button.getAttribute("data-all-yes");
      document.querySelectorAll('input[type="radio"][value="yes"]').forEach(function (input) {
        if (input.name.indexOf(prefix) === 0) { input.checked = true; }
      });
    } else {
      var box = document.getElementById(button.getAttribute("data-fill"));
      if (box) { box.value = button.getAttribute("data-value") || ""; }
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submitMain();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) { return; }
    if (event.key === "Enter") {
      // Enter on a focused button or link does what it says; elsewhere it submits the decision
      var tag = event.target && event.target.tagName;
      if (tag === "BUTTON" || tag === "A") { return; }
      event.preventDefault();
      submitMain();
      return;
    }
    var key = event.key.toLowerCase();
    if (!/^[a-z0-9]$/.test(key)) { return; }
    var control = document.querySelector('[data-key="' + key + '"]');
    if (!control) { return; }
    event.preventDefault();
    if (control.hasAttribute("data-toggle")) {
      toggle(control);
    } else if (control.type === "radio" || control.type === "checkbox") {
      control.checked = control.type === "radio" ? true : !control.checked;
    } else {
      control.click();
    }
  });
})();
