// The offline site's script (.ci/build_site.py copies it into site/): search as you type over search.json with the
// vendored MiniSearch, the "on this page" highlight, and the sidebar scrolled to the current page.
(function () {
  'use strict';
  const input = document.getElementById('search-input'), box = document.getElementById('search-results');
  let engine = null, loading = null, hits = [], selected = -1, lastQuery = '';

  // search.json is fetched when the site is served; a page opened from disk (file://) cannot fetch, so it loads the
  // same index as a script (search-index.js sets window.SHAPNB_SEARCH_INDEX).
  function loadIndex() {
    if (loading) return loading;
    const docs = location.protocol === 'file:'
      ? new Promise((ok, fail) => {
          const s = document.createElement('script');
          s.src = 'search-index.js';
          s.onload = () => ok(window.SHAPNB_SEARCH_INDEX);
          s.onerror = () => fail(new Error('search-index.js did not load'));
          document.head.appendChild(s);
        })
      : fetch('search.json').then(r => { if (!r.ok) throw new Error('search.json: HTTP ' + r.status); return r.json(); });
    loading = docs.then(index => {
      engine = new MiniSearch({
        fields: ['title', 'heading', 'text'], storeFields: ['page', 'anchor', 'title', 'heading', 'text'],
        searchOptions: {boost: {heading: 3, title: 2}, prefix: true, fuzzy: 0.15, combineWith: 'AND'}
      });
      engine.addAll(index.docs);
      return engine;
    });
    return loading;
  }

  const escapeHtml = s => s.replace(/[&<>"']/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
  const escapeRe = s => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  function snippet(text, terms) {
    const lower = text.toLowerCase();
    let at = -1;
    for (const t of terms) { const i = lower.indexOf(t.toLowerCase()); if (i >= 0 && (at < 0 || i < at)) at = i; }
    const start = Math.max(0, at - 60), piece = text.slice(start, start + 180);
    let out = escapeHtml(piece);
    if (terms.length) out = out.replace(new RegExp('(' + terms.map(t => escapeRe(escapeHtml(t))).join('|') + ')', 'gi'), '<mark>$1</mark>');
    return (start > 0 ? '… ' : '') + out + (start + 180 < text.length ? ' …' : '');
  }

  function render(query) {
    if (!query) { box.hidden = true; box.innerHTML = ''; hits = []; return; }
    hits = engine.search(query).slice(0, 10);
    selected = hits.length ? 0 : -1;
    if (!hits.length) { box.innerHTML = '<div class="r-none">No results for “' + escapeHtml(query) + '”</div>'; box.hidden = false; return; }
    box.innerHTML = hits.map((h, i) => {
      const terms = h.terms || [], href = h.page + (h.anchor ? '#' + h.anchor : '');
      const heading = h.heading && h.heading !== h.title ? '<div class="r-heading">' + escapeHtml(h.heading) + '</div>' : '';
      return '<a href="' + escapeHtml(href) + '" class="' + (i === selected ? 'selected' : '') + '" data-i="' + i + '">' +
             '<div class="r-page">' + escapeHtml(h.title.split(': ')[0]) + '</div>' +
             (heading || '<div class="r-heading">' + escapeHtml(h.title) + '</div>') +
             '<div class="r-snippet">' + snippet(h.text, terms) + '</div></a>';
    }).join('');
    box.hidden = false;
    if (window.MathJax && MathJax.typesetPromise) MathJax.typesetPromise([box]).catch(() => {});
  }

  function update() {
    const query = input.value.trim();
    if (query === lastQuery && !box.hidden) return;
    lastQuery = query;
    if (!query) return render('');
    loadIndex().then(() => { if (input.value.trim() === query) render(query); })
      .catch(e => { box.innerHTML = '<div class="r-none">Search is unavailable: ' + escapeHtml(e.message) + '</div>'; box.hidden = false; });
  }

  function select(i) {
    const links = box.querySelectorAll('a');
    if (!links.length) return;
    selected = (i + links.length) % links.length;
    links.forEach((a, j) => a.classList.toggle('selected', j === selected));
    links[selected].scrollIntoView({block: 'nearest'});
  }

  if (input && box) {
    input.addEventListener('focus', () => { loadIndex().catch(() => {}); if (input.value.trim()) { lastQuery = ''; update(); } });
    input.addEventListener('input', update);
    input.addEventListener('keydown', e => {
      if (e.key === 'ArrowDown') { e.preventDefault(); select(selected + 1); }
      else if (e.key === 'ArrowUp') { e.preventDefault(); select(selected - 1); }
      else if (e.key === 'Enter') { const a = box.querySelectorAll('a')[Math.max(selected, 0)]; if (a) { e.preventDefault(); location.href = a.href; } }
      else if (e.key === 'Escape') { box.hidden = true; input.blur(); }
    });
    document.addEventListener('click', e => { if (!e.target.closest('.search')) box.hidden = true; });
    document.addEventListener('keydown', e => {
      if (e.key === '/' && document.activeElement !== input && !/^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName)) {
        e.preventDefault(); input.focus(); input.select();
      }
    });
  }

  // the sidebar shows the current page
  const sidebar = document.getElementById('sidebar'), current = sidebar && sidebar.querySelector('a.active');
  if (current && current.offsetTop > sidebar.clientHeight - 80) sidebar.scrollTop = current.offsetTop - sidebar.clientHeight / 3;

  // "on this page" follows the reader
  const tocLinks = [...document.querySelectorAll('.toc a[href^="#"]')];
  const targets = tocLinks.map(a => document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1))));
  if (tocLinks.length && targets.every(Boolean)) {
    const mark = () => {
      let i = 0;
      targets.forEach((t, j) => { if (t.getBoundingClientRect().top < 120) i = j; });
      if (window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 4) {   // at the end: the last
        targets.forEach((t, j) => { if (t.getBoundingClientRect().top < window.innerHeight) i = Math.max(i, j); });
      }
      tocLinks.forEach((a, j) => a.classList.toggle('current', j === i));
    };
    document.addEventListener('scroll', mark, {passive: true});
    mark();
  }
})();
