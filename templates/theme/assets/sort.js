/* Progressive enhancement: click a column header of a table.sortable to sort it.
   Without JavaScript the table keeps its published order, which is meaningful on its own.
   Cells may carry data-sort (a number) to sort by; otherwise their text is compared. */
(function () {
  "use strict";
  function key(cell) {
    var v = cell.getAttribute("data-sort");
    if (v !== null && v !== "" && !isNaN(Number(v))) { return { n: Number(v) }; }
    return { s: cell.textContent.trim() };
  }
  function compare(a, b) {
    if (a.n !== undefined && b.n !== undefined) { return a.n - b.n; }
    if (a.n !== undefined) { return -1; }
    if (b.n !== undefined) { return 1; }
    return a.s.localeCompare(b.s, undefined, { numeric: true });
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    var rows = Array.prototype.slice.call(body.rows).map(function (r, i) {
      return { row: r, k: key(r.cells[col]), i: i };
    });
    rows.sort(function (x, y) { return dir * compare(x.k, y.k) || x.i - y.i; });
    rows.forEach(function (x) { body.appendChild(x.row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "sort";
      while (th.firstChild) { b.appendChild(th.firstChild); }
      th.appendChild(b);
      b.addEventListener("click", function () { sortBy(table, col, th); });
    });
  });
})();
