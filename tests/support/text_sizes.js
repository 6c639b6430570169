// Every text on the page that is rendered smaller than `min` CSS pixels, one line each ("td.name 'Ana Costa': 24.0
// px"): its font size, and the height of its rendered line boxes (a transform or a zoom that shrinks it counts).
// tests/displays/test_tournament_pages.py runs it in the browser to hold the hall screen's rule for reading from 5 m.
(min) => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className ? "." + String(e.className).split(" ").filter(Boolean).join(".") : "");
  let count = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    if (!text) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!rects.length) continue; // not rendered: hidden, or in a hidden page of rows
    count += 1;
    const size = parseFloat(getComputedStyle(n.parentElement).fontSize);
    const height = Math.min(...rects.map((r) => r.height));
    if (size < min - 0.01 || height < min - 0.01)
      out.push(`${name(n.parentElement)} '${text.slice(0, 30)}': ${size.toFixed(1)} px type, ${height.toFixed(1)} px rendered`);
  }
  return { small: out, texts: count };
}
