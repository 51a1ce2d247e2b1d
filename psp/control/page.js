"use strict";
// The page refreshes its data every second: it fetches itself and swaps #data for the new one.
// With a control token, the token is kept in sessionStorage and sent as a bearer token.
(() => {
  const tokenKey = "psp-control-token";
  const body = document.body.dataset;
  const tokenForm = document.getElementById("token-form");
  const status = document.getElementById("status");
  const result = document.getElementById("fault-result");
  let timer = 0, busy = false, again = false;

  const token = () => body.token === "required" ? sessionStorage.getItem(tokenKey) : "";
  const headers = (extra) => token() ? { ...extra, Authorization: "Bearer " + token() } : extra;

  function askToken(why) {
    sessionStorage.removeItem(tokenKey);
    tokenForm.hidden = false;
    status.textContent = why;
  }

  async function refresh() {
    clearTimeout(timer);
    if (busy) { again = true; return; }
    if (token() === null) { askToken("enter the control token"); return; }
    busy = true;
    try {
      const resp = await fetch(body.page, { headers: headers({}), cache: "no-store" });
      if (resp.status === 401) { askToken("the control token was refused"); return; }
      if (!resp.ok) throw new Error("status " + resp.status);
      const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
      document.getElementById("data").replaceWith(document.adoptNode(doc.getElementById("data")));
      tokenForm.hidden = true;
      status.textContent = "updated at " + new Date().toLocaleTimeString();
    } catch (err) {
      status.textContent = "not updated: " + err.message;
    } finally {
      busy = false;
    }
    timer = setTimeout(refresh, again ? 0 : 1000);
    again = false;
  }

  tokenForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const input = document.getElementById("token");
    sessionStorage.setItem(tokenKey, input.value);
    input.value = "";
    refresh();
  });

  // The fault form posts JSON, as the control API requires: the browser never posts it itself.
  document.getElementById("fault-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    result.className = "";
    const text = document.getElementById("fault").value;
    try {
      const resp = await fetch(body.faults, {
        method: "POST",
        headers: headers({ "Content-Type": "application/json" }),
        body: '{"faults":[' + text + "]}",
      });
      if (resp.status === 204) {
        result.textContent = "204: queued";
        refresh();
        return;
      }
      result.className = "refused";
      const problem = await resp.json();
      const lines = [resp.status + ": " + problem.detail];
      for (const v of problem.violacoes || []) lines.push(v.campo + ": " + v.motivo);
      result.textContent = lines.join("\n");
    } catch (err) {
      result.className = "refused";
      result.textContent = "not queued: " + err.message;
    }
  });

  refresh();
})();
