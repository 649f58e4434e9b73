/* Progressive enhancement: click a column header of a table.sortable to sort it.
   Without JavaScript the table keeps its published order, which is meaningful on its own.
   Cells may carry data-sort (a number) to sort by; otherwise their text is compared. A cell
   with no figure ("–", the site's mark for one) sorts last whichever the order.
   Each header becomes a button titled "Sort by <column>" (its group's heading first, when it
   has one), marked by an arrow (site.css; hidden from screen readers, which read aria-sort)
   that shows the order once sorted; a head reached by Tab is scrolled into view. A table it
   enhances gets the class "sorting" (on a phone, site.css then shows a list's heads as a line
   of sort buttons). */
(function () {
  "use strict";
  var NO_FIGURE = "\u2013";
  function key(cell) {
    if (cell.textContent.trim() === NO_FIGURE) { return { none: true }; }
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
  /* The header cells that head one column each (a group's heading over several is no sort
     key), with that column's index: rowspan and colspan counted, as a second row under a
     group's heading has them. */
  function heads(table) {
    var rows = table.tHead.rows, taken = [], out = [];
    Array.prototype.forEach.call(rows, function (row, r) {
      var col = 0;
      Array.prototype.forEach.call(row.cells, function (th) {
        while (taken[r] && taken[r][col]) { col++; }
        for (var i = r; i < r + th.rowSpan; i++) {
          for (var j = col; j < col + th.colSpan; j++) { (taken[i] = taken[i] || [])[j] = th; }
        }
        if (th.colSpan === 1 && r + th.rowSpan >= rows.length) {
          out.push({ th: th, col: col, group: r > 0 ? taken[r - 1][col] : null });
        }
        col += th.colSpan;
      });
    });
    return out;
  }
  /* A head reached by Tab is scrolled fully into its table's box, clear of the columns that
     stay put as the table scrolls (the first; on a phone, the second too of a table two columns
     name). The browser scrolls a box only for a head wholly out of it: a head cut at the box's
     edge, or under a column that stays, would keep its name and its focus ring out of sight. */
  function reveal(table, th) {
    var box = table.closest(".table-wrap");
    if (!box) { return; }
    var r = box.getBoundingClientRect(), c = th.getBoundingClientRect();
    var left = r.left + box.clientLeft, i = 0, cells = table.tHead.rows[0].cells;
    for (var cell = cells[0]; cell && cell !== th && getComputedStyle(cell).position === "sticky";
      cell = cells[++i]) {
      left += cell.getBoundingClientRect().width;
    }
    var right = r.left + box.clientLeft + box.clientWidth;
    if (c.right > right) { box.scrollLeft += c.right - right; }
    if (c.left < left) { box.scrollLeft -= left - c.left; }
  }
  function words(th) { return th.textContent.replace(/\s+/g, " ").trim(); }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    var rows = Array.prototype.slice.call(body.rows).map(function (r, i) {
      return { row: r, k: key(r.cells[col]), i: i };
    });
    rows.sort(function (x, y) {
      if (!x.k.none !== !y.k.none) { return x.k.none ? 1 : -1; }
      return (x.k.none ? 0 : dir * compare(x.k, y.k)) || x.i - y.i;
    });
    rows.forEach(function (x) { body.appendChild(x.row); });
    heads(table).forEach(function (h) { h.th.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    table.classList.add("sorting");
    heads(table).forEach(function (h) {
      var th = h.th, col = h.col;
      var b = document.createElement("button");
      b.type = "button";
      b.className = "sort";
      b.title = "Sort by " + (h.group ? words(h.group) + ", " : "") + words(th);
      while (th.firstChild) { b.appendChild(th.firstChild); }
      var mark = document.createElement("span");
      mark.className = "sort-mark";
      mark.setAttribute("aria-hidden", "true");
      b.appendChild(mark);
      th.appendChild(b);
      b.addEventListener("click", function () { sortBy(table, col, th); });
      b.addEventListener("focus", function () { reveal(table, th); });
    });
  });
})();
