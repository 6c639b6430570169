// Every element of the page that is not wholly on screen, cut off by its panel, or hiding text behind its edge:
// one line each ("h2.name hides text below"). tests/displays/test_screens.py runs it in the browser.
() => {
  const W = innerWidth, H = innerHeight, out = [];
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + String(e.className).split(' ').join('.') : '');
  for (const e of document.body.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(e).visibility === 'hidden' || e.closest('#toast')) continue;
    if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5)
      out.push(`${name(e)} outside the screen: ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`);
    const box = e.parentElement && e.parentElement.closest('section.side, .state, .turn, .recent, header');
    if (box) {
      const b = box.getBoundingClientRect();
      if (r.bottom > b.bottom + 0.5 || r.right > b.right + 0.5) out.push(`${name(e)} cut off by ${name(box)}`);
    }
    if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible') out.push(`${name(e)} hides text across`);
    if (e.scrollHeight > e.clientHeight + 1 && getComputedStyle(e).overflowY !== 'visible') out.push(`${name(e)} hides text below`);
  }
  return out;
}
