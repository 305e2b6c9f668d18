import { createHash } from "node:crypto";

/** Where the desk serves its one script, from its own origin (the CSP allows no other). */
export const UPLOAD_SCRIPT_PATH = "/desk/upload.js";

/**
 * The upload form's progressive enhancement: the same post, sent with XMLHttpRequest so the
 * bytes' progress fills the form's `<progress>`. The header asks for the stored event's place
 * instead of a redirect (a redirect's `#fragment` is lost to a script); a refusal's page takes
 * the place of this one, its error summary focused. Without the script, the form posts as it is.
 */
export const UPLOAD_SCRIPT = `"use strict";
(function () {
  function enhance() {
    var form = document.querySelector("form[data-upload]");
    var block = document.getElementById("upload");
    var bar = document.getElementById("upload-progress");
    var status = document.getElementById("upload-status");
    if (!form || !block || !bar || !status || !window.FormData || !window.XMLHttpRequest) return;
    var sending = false;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (sending) return;
      sending = true;
      var xhr = new XMLHttpRequest();
      xhr.open("POST", form.getAttribute("action"));
      xhr.setRequestHeader("X-Desk-Upload", "progress");
      // The answer replaces the page when it is not a redirect: a refusal must come as a page.
      xhr.setRequestHeader("Accept", "text/html");
      xhr.upload.addEventListener("progress", function (e) {
        if (!e.lengthComputable) return;
        bar.max = e.total;
        bar.value = e.loaded;
        status.textContent = "Sent " + Math.floor((100 * e.loaded) / e.total) + "% of the form";
      });
      xhr.addEventListener("load", function () {
        var to = xhr.getResponseHeader("X-Desk-Location");
        if (xhr.status < 300 && to) {
          status.textContent = "Stored. Opening the incident…";
          window.location.assign(to);
          return;
        }
        var page = new DOMParser().parseFromString(xhr.responseText, "text/html");
        document.title = page.title;
        document.body.replaceWith(page.body);
        enhance();
        var summary = document.querySelector(".error-summary");
        if (summary) summary.focus();
      });
      xhr.addEventListener("error", function () {
        sending = false;
        status.textContent = "The upload did not reach the archive: nothing was stored. Check the connection and send the form again.";
      });
      block.hidden = false;
      status.textContent = "Sending…";
      xhr.send(new FormData(form));
    });
  }
  enhance();
})();
`;

/** The script's hash, for its strong ETag. */
export const UPLOAD_SCRIPT_ETAG = `"${createHash("sha256").update(UPLOAD_SCRIPT).digest("base64url")}"`;
