// hz pages: live updates over Server-Sent Events. The pages work without this file; it only keeps an
// open page current. What a stream sends is set as text (textContent), never parsed as markup; a page
// told that its content changed (drafts, graph, why) asks this server for itself again, the same HTML a
// reload would give, and swaps its <main> in place (scripts in it never run; the CSP allows none inline).
(function () {
  "use strict";
  var url = document.body.getAttribute("data-stream");
  if (!url || !window.EventSource) { return; }
  var status = document.getElementById("live-status");
  var source = new EventSource(url);

  function when(value) { return value ? String(value).slice(0, 16).replace("T", " ") : "-"; }
  function usd(value) { return Number(value || 0).toFixed(2); }
  function pending(p) {
    var found = ["draft", "amendment", "question"].filter(function (k) { return p && p[k]; });
    return found.length ? found.join(", ") : "-";
  }
  function cells(row) {
    return {
      state: row.state,
      version: row.contract && row.contract.version ? "v" + row.contract.version : "-",
      next_due: when(row.next_due),
      pending: pending(row.pending),
      cost_today: usd(row.cost_today)
    };
  }
  function fill(scope, row) {
    var values = cells(row);
    Object.keys(values).forEach(function (name) {
      scope.querySelectorAll('[data-field="' + name + '"]').forEach(function (el) {
        el.textContent = values[name];
        if (name === "state") { el.className = "state " + values[name]; }
      });
    });
  }
  function listRow(row) {
    var body = document.querySelector("table.agents tbody");
    if (!body) { return; }
    var found = null;
    body.querySelectorAll("tr[data-agent]").forEach(function (tr) {
      if (tr.getAttribute("data-agent") === row.id) { found = tr; }
    });
    if (!found) {
      found = document.createElement("tr");
      found.setAttribute("data-agent", row.id);
      var link = document.createElement("a");
      link.href = "/heinzel/" + encodeURIComponent(row.id);
      link.textContent = row.namespace + ":" + row.name;
      var first = document.createElement("td");
      first.appendChild(link);
      found.appendChild(first);
      ["state", "version", "next_due", "pending", "cost_today"].forEach(function (name) {
        var td = document.createElement("td");
        td.setAttribute("data-field", name);
        found.appendChild(td);
      });
      var id = document.createElement("td");
      id.className = "id";
      id.textContent = row.id;
      found.appendChild(id);
      body.appendChild(found);
    }
    fill(found, row);
  }
  function describe(step) {
    var d = step.data || {};
    var detail = d.step || d.disposition || d.cause || d.asset || d.question || d.sentence || d.reason || "";
    if (step.kind === "turn.steered") { detail = "your message reached the running turn"; }
    if (d.report) { detail = detail + ": " + d.report; }
    return when(step.ts) + "  " + step.kind + (detail ? "  " + detail : "");
  }

  source.onopen = function () { if (status) { status.hidden = false; status.textContent = "live"; } };
  source.onerror = function () { if (status) { status.textContent = "reconnecting"; } };
  source.addEventListener("row", function (e) {
    var data = JSON.parse(e.data);
    if (Array.isArray(data)) { data.forEach(listRow); return; }
    var agent = document.querySelector("article.agent");
    if (agent && data) { fill(agent, data); }
  });
  source.addEventListener("agent", function (e) { listRow(JSON.parse(e.data)); });
  source.addEventListener("gone", function (e) {
    var id = JSON.parse(e.data);
    document.querySelectorAll("tr[data-agent]").forEach(function (tr) {
      if (tr.getAttribute("data-agent") === id) { tr.classList.add("gone"); }
    });
  });
  var redrawing = false, again = false;
  function redraw() {
    if (redrawing) { again = true; return; }  // one fetch at a time; a change meanwhile fetches once more
    redrawing = true;
    again = false;
    fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (text) {
        if (text === null) { return; }
        var fresh = new DOMParser().parseFromString(text, "text/html").querySelector("main");
        var shown = document.querySelector("main");
        if (fresh && shown) { shown.replaceWith(document.adoptNode(fresh)); }
        document.body.setAttribute("data-redrawn", String(Date.now()));
      })
      .catch(function () {})
      .then(function () {
        redrawing = false;
        if (again) { redraw(); }
      });
  }
  source.addEventListener("changed", redraw);
  source.addEventListener("step", function (e) {
    var step = JSON.parse(e.data);
    var list = document.getElementById("live-steps");
    if (!list) { return; }
    var item = document.createElement("li");
    item.setAttribute("data-seq", String(step.seq));
    item.setAttribute("data-kind", step.kind);
    item.textContent = describe(step);
    list.insertBefore(item, list.firstChild);
    var article = document.querySelector("article.agent");
    if (article) { article.setAttribute("data-seq", String(step.seq)); }
  });
})();
