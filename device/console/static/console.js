// The console's only script: it refreshes what changes while a page is
// open. Without it every page still works (links and forms); it adds no
// action of its own. Three things, every data-refresh milliseconds and
// only while the page is visible:
//  - [data-live] parts (by id) are replaced by the same parts of the page
//    fetched again; a [data-live-set] list is redrawn whole when the set
//    of things it lists changed;
//  - thumbnails (img[data-thumb]) on screen are taken again (an
//    IntersectionObserver says which are on screen);
//  - the audit table (tbody[data-tail]) gets the rows written since.
(function () {
  'use strict';
  var period = parseInt(document.body.getAttribute('data-refresh'), 10) || 2000;
  var onScreen = new Set();
  var io = 'IntersectionObserver' in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      if (e.isIntersecting) { onScreen.add(e.target); } else { onScreen.delete(e.target); }
    });
  }) : null;

  function watchThumbs(root) {
    root.querySelectorAll('img[data-thumb]').forEach(function (img) {
      if (io) { io.observe(img); } else { onScreen.add(img); }
    });
  }

  function visible() { return document.visibilityState === 'visible'; }

  function get(url) {
    return fetch(url, { credentials: 'same-origin', cache: 'no-store', headers: { 'X-Console-Live': '1' } })
      .then(function (r) {
        if (r.status === 401) { window.location.assign('/login'); throw new Error('logged out'); }
        if (!r.ok) { throw new Error('HTTP ' + r.status); }
        return r.text();
      });
  }

  var busy = false;
  function refreshParts() {
    var sets = document.querySelectorAll('[data-live-set]');
    var parts = document.querySelectorAll('[data-live]');
    if (busy || (sets.length === 0 && parts.length === 0)) { return; }
    busy = true;
    get(window.location.href).then(function (html) {
      var doc = new DOMParser().parseFromString(html, 'text/html');
      sets.forEach(function (el) {
        var n = doc.getElementById(el.id);
        if (n && n.getAttribute('data-live-set') !== el.getAttribute('data-live-set')) {
          el.querySelectorAll('img[data-thumb]').forEach(function (img) { onScreen.delete(img); if (io) { io.unobserve(img); } });
          el.innerHTML = n.innerHTML;
          el.setAttribute('data-live-set', n.getAttribute('data-live-set'));
          watchThumbs(el);
        }
      });
      document.querySelectorAll('[data-live]').forEach(function (el) {
        var n = doc.getElementById(el.id);
        if (n && n.innerHTML !== el.innerHTML) { el.innerHTML = n.innerHTML; }
      });
    }).catch(function () {}).finally(function () { busy = false; });
  }

  function refreshThumbs() {
    onScreen.forEach(function (img) {
      if (!img.isConnected) { onScreen.delete(img); return; }
      if (img.getAttribute('data-loading')) { return; }
      img.setAttribute('data-loading', '1');
      var next = new Image();
      next.onload = function () { img.src = next.src; img.removeAttribute('data-loading'); };
      next.onerror = function () { img.removeAttribute('data-loading'); };
      next.src = img.getAttribute('data-thumb') + '&t=' + Date.now();
    });
  }

  var tailBusy = false;
  function refreshTail() {
    var body = document.querySelector('tbody[data-tail]');
    if (!body || tailBusy) { return; }
    tailBusy = true;
    var url = body.getAttribute('data-tail');
    url += (url.indexOf('?') < 0 ? '?' : '&') + 'after=' + encodeURIComponent(body.getAttribute('data-after'));
    get(url).then(function (html) {
      var doc = new DOMParser().parseFromString('<table><tbody>' + html + '</tbody></table>', 'text/html');
      var rows = doc.querySelectorAll('tr[data-id]');
      if (rows.length === 0) { return; }
      var first = body.firstChild;
      var after = parseInt(body.getAttribute('data-after'), 10) || 0;
      rows.forEach(function (tr) {
        after = Math.max(after, parseInt(tr.getAttribute('data-id'), 10) || 0);
        tr.classList.add('new');
        body.insertBefore(document.importNode(tr, true), first);
      });
      body.setAttribute('data-after', String(after));
      var empty = document.getElementById('audit-empty');
      if (empty) { empty.remove(); }
    }).catch(function () {}).finally(function () { tailBusy = false; });
  }

  function tick() {
    if (!visible()) { return; }
    refreshParts();
    refreshThumbs();
    refreshTail();
  }

  watchThumbs(document);
  window.setInterval(tick, period);
  document.addEventListener('visibilitychange', function () { if (visible()) { tick(); } });
})();
