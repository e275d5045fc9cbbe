/// The inspector page's scripts: ``app`` (`GET /__tapedeck/ui/app.js`) renders everything from
/// the JSON endpoints, only ever as text (never as HTML); ``live`` (`GET /__tapedeck/ui/live.js`)
/// is a worker that listens to `/__tapedeck/events` and hands each event to the page.
///
/// The stream is read in a worker so the page itself has no request that never ends: a headless
/// browser asked for `--virtual-time-budget` waits for the page's requests to finish before time
/// moves on. A browser without workers, or without EventSource in them, reads it in the page.
enum InspectorScript {
    /// The page's script.
    static let app = #"""
    'use strict';
    (function () {
      // From the origin: a page opened with credentials in its address (http://user:pass@host/…,
      // under --proxy-auth) may not fetch a relative URL.
      const base = location.origin + '/__tapedeck/';
      const state = { exchanges: new Map(), selected: null, filter: '', capacity: 200 };
      const $ = (id) => document.getElementById(id);

      function el(tag, attributes, ...children) {
        const node = document.createElement(tag);
        for (const [name, value] of Object.entries(attributes || {})) {
          if (value == null) continue;
          if (name === 'class') node.className = value; else node.setAttribute(name, value);
        }
        for (const child of children.flat()) {
          if (child == null || child === false) continue;
          node.append(child instanceof Node ? child : String(child));
        }
        return node;
      }

      async function getJSON(path) {
        const response = await fetch(base + path, { cache: 'no-store' });
        if (!response.ok) throw new Error(path + ': HTTP ' + response.status);
        return response.json();
      }

      // A stub by its name where it has one: stub "flaky" (stub-4).
      function stubName(id, name) { return 'stub ' + (name ? '"' + name + '" (' + id + ')' : id); }

      function source(x) {
        if (x.stub) return stubName(x.stub, x.stubName);
        if (x.cassette != null) return x.cassette + ' #' + x.index;
        return '';
      }

      // A cassette without its folder; a stub's name whole.
      function shortSource(x) { return x.stub ? source(x) : source(x).replace(/^.*\//, ''); }

      // The outcome, or the fault a stub made instead of answering: "fault: reset".
      function outcome(x) { return x.fault ? 'fault: ' + x.fault : x.outcome; }

      function badge(x) { return el('span', { class: 'badge ' + (x.fault ? 'fault' : x.outcome) }, outcome(x)); }

      function shortTime(time) { return time ? time.replace(/^.*T/, '').replace('Z', '') : ''; }

      function matchesFilter(x) {
        if (!state.filter) return true;
        const text = [x.id, x.method, x.url, x.status, x.outcome, x.fault ? outcome(x) : null, source(x), x.session].join(' ').toLowerCase();
        return state.filter.split(/\s+/).every((word) => text.includes(word));
      }

      function renderList() {
        const body = $('exchanges').tBodies[0];
        const all = [...state.exchanges.values()].sort((a, b) => b.id - a.id);
        const shown = all.filter(matchesFilter);
        body.replaceChildren(...shown.map((x) => {
          const row = el('tr', { class: x.id === state.selected ? 'selected' : null, 'data-id': x.id, tabindex: '0' },
            el('td', null, x.id), el('td', { class: 'time' }, shortTime(x.time)),
            el('td', null, badge(x)), el('td', null, x.method),
            el('td', { class: 'url' }, x.url), el('td', null, x.status == null ? '' : x.status), el('td', { class: 'url', title: source(x) }, shortSource(x)));
          row.addEventListener('click', () => openExchange(x.id));
          row.addEventListener('keydown', (event) => { if (event.key === 'Enter') openExchange(x.id); });
          return row;
        }));
        $('count').textContent = shown.length === all.length ? '(' + all.length + ')' : '(' + shown.length + ' of ' + all.length + ')';
        $('empty').hidden = all.length > 0;
      }

      function remember(x) {
        state.exchanges.set(x.id, x);
        if (state.exchanges.size > state.capacity) {
          const oldest = Math.min(...state.exchanges.keys());
          state.exchanges.delete(oldest);
        }
      }

      async function loadExchanges() {
        const list = await getJSON('exchanges');
        state.capacity = list.capacity;
        state.exchanges.clear();
        list.exchanges.forEach(remember);
        renderList();
      }

      async function openExchange(id) {
        state.selected = id;
        if (!location.hash.split('&').includes('exchange=' + id) && location.hash !== '#exchange=' + id) {
          history.replaceState(null, '', '#exchange=' + id);
        }
        renderList();
        try {
          renderDetail(await getJSON('exchanges/' + id));
        } catch (error) {
          $('detail-pane').replaceChildren(el('p', { class: 'error' }, 'Exchange #' + id + ' is no longer kept (' + error.message + ').'));
        }
      }

      function renderDetail(x) {
        const facts = [x.status == null ? null : 'status ' + x.status, source(x), x.session ? 'session ' + x.session : null, x.time];
        const parts = [
          el('h2', null, '#' + x.id + ' ', badge(x), ' ' + x.method + ' ', el('span', { class: 'url' }, x.url)),
          el('p', { class: 'meta' }, facts.filter(Boolean).join(' · ')),
        ];
        if (x.diagnosis) parts.push(renderDiagnosis(x));
        // How the exchange breaks the API document (--openapi), one line each.
        if (x.violations) parts.push(el('section', { class: 'violations', id: 'violations' },
          el('h3', null, 'Breaks the API document (' + x.violations.length + ')'),
          el('ul', { class: 'failures' }, x.violations.map((line) => el('li', null, line)))));
        parts.push(el('h3', null, 'Request'), messageTable(x.method, x.url, x.request, null));
        if (x.response) parts.push(el('h3', null, 'Response: ' + x.response.status), messageTable(null, null, x.response, null));
        if (x.websocket) parts.push(renderConversation(x.websocket));
        $('detail-pane').replaceChildren(...parts);
      }

      // A WebSocket conversation: one row per message (side, time, content) and, on replay, where
      // the client left the recording: what it held there and what came instead.
      function renderConversation(c) {
        const shown = (m) => m.text != null ? m.text : m.base64 != null ? 'binary ' + m.base64 : 'close ' + (m.close == null ? '' : m.close) + (m.reason ? ' ' + m.reason : '');
        const table = el('table', { class: 'kv conversation' });
        for (const m of c.messages) table.append(el('tr', null, el('td', null, m.from + ' ' + (m.atMs || 0) + ' ms'), el('td', null, shown(m))));
        const parts = [el('h3', null, 'WebSocket conversation (' + c.messages.length + ' messages)'), table];
        if (c.leftAt != null) {
          parts.push(el('p', { class: 'diagnosis-line' }, 'Left the recording at message ' + c.leftAt + ': recorded ',
            el('mark', { class: 'recorded' }, c.expected ? shown(c.expected) : 'the end of the conversation'), ', received ',
            el('mark', { class: 'received' }, c.received ? shown(c.received) : '')));
        }
        return el('section', { class: 'conversation', id: 'conversation' }, ...parts);
      }

      const reasons = {
        'no-match': 'No recording or stub matched this request',
        exhausted: 'Every matching recording was already played',
        expired: 'Every matching recording has expired',
      };

      function renderDiagnosis(x) {
        const d = x.diagnosis;
        const nearest = el('div', { class: 'col' }, el('h4', null, 'Nearest recordings and stubs'));
        d.nearest.forEach((miss, number) => {
          const recorded = x.nearestRequests ? x.nearestRequests[number] : null;
          const failures = el('ul', { class: 'failures' });
          miss.failedRules.forEach((rule, position) => failures.append(
            el('li', null, el('span', { class: 'rule' }, rule), ' ', difference(miss.differences[position] || ''))));
          if (!miss.failedRules.length) failures.append(el('li', null, reasons[d.reason] || 'matched every rule'));
          nearest.append(el('div', { class: 'candidate' },
            el('h5', null, miss.cassette + ' #' + miss.index + ': ' + miss.method + ' ', el('span', { class: 'url' }, miss.url)),
            failures, recorded ? messageTable(miss.method, miss.url, recorded, { rules: miss.failedRules, other: x }) : null));
        });
        (d.nearestStubs || []).forEach((stub) => nearest.append(el('div', { class: 'candidate stub' },
          el('h5', null, stubName(stub.id, stub.name)),
          el('ul', { class: 'failures' }, el('li', null, el('span', { class: 'rule' }, stub.failedField), ' ', difference(stub.difference))))));
        if (!d.nearest.length && !(d.nearestStubs || []).length) {
          nearest.append(el('p', { class: 'muted' }, 'The cassettes hold no interactions and there are no stubs.'));
        }
        const firstRules = d.nearest.length ? d.nearest[0].failedRules : [];
        const firstRecorded = x.nearestRequests && x.nearestRequests[0];
        const received = el('div', { class: 'col' }, el('h4', null, 'Received'),
          messageTable(x.method, x.url, x.request, firstRecorded ? { rules: firstRules, other: { method: d.nearest[0].method, url: d.nearest[0].url, request: firstRecorded } } : null));
        return el('section', { class: 'diagnosis', id: 'diagnosis' },
          el('h3', null, reasons[d.reason] || d.reason),
          el('p', { class: 'meta' }, 'Cassettes searched: ' + (d.cassettes.join(', ') || 'none')),
          el('details', { class: 'meta' }, el('summary', null, 'Rules in force (' + d.rules.length + ')'), el('ul', null, d.rules.map((rule) => el('li', null, rule)))),
          el('div', { class: 'side-by-side' }, received, nearest),
          el('p', { class: 'hint' }, d.hint));
      }

      // "at $.path recorded A, received B" and "recorded A, received B": the path and both values marked.
      function difference(text) {
        const json = /^at (\S+) recorded (.*), received (.*)$/.exec(text);
        if (json) return el('span', { class: 'difference' }, 'at ', el('mark', { class: 'path' }, json[1]),
          ' recorded ', el('mark', { class: 'recorded' }, json[2]), ', received ', el('mark', { class: 'received' }, json[3]));
        const plain = /^recorded (.*), received (.*)$/.exec(text);
        if (plain) return el('span', { class: 'difference' }, 'recorded ', el('mark', { class: 'recorded' }, plain[1]),
          ', received ', el('mark', { class: 'received' }, plain[2]));
        return el('span', { class: 'difference' }, el('mark', null, text));
      }

      // A request or response: method and URL (for a request), headers, body. With `compare`, the
      // rows of the failed rules are marked, and the body lines the other side lacks.
      function messageTable(method, url, message, compare) {
        const rules = compare ? compare.rules : [];
        const other = compare ? compare.other : null;
        const table = el('table', { class: 'kv' });
        if (method != null) table.append(el('tr', { class: rules.includes('method') ? 'differs' : null }, el('td', null, 'method'), el('td', null, method)));
        if (url != null) table.append(el('tr', { class: ['host', 'path', 'query'].some((r) => rules.includes(r)) ? 'differs' : null }, el('td', null, 'url'), el('td', null, url)));
        const otherHeaders = other ? new Set(other.request.headers.map(([n, v]) => n.toLowerCase() + ': ' + v)) : null;
        for (const [name, value] of message.headers) {
          const differs = rules.includes('headers') && otherHeaders && !otherHeaders.has(name.toLowerCase() + ': ' + value);
          table.append(el('tr', { class: differs ? 'differs' : null }, el('td', null, name), el('td', null, value)));
        }
        const otherBody = other && rules.includes('body') ? other.request.body : null;
        const shown = el('div', null, table, renderBody(message.body, otherBody));
        if (message.trailers) {
          const trailers = el('table', { class: 'kv trailers' });
          for (const [name, value] of message.trailers) trailers.append(el('tr', null, el('td', null, name), el('td', null, value)));
          shown.append(el('h4', null, 'Trailers'), trailers);
        }
        return shown;
      }

      function sortKeys(value) {
        if (Array.isArray(value)) return value.map(sortKeys);
        if (value && typeof value === 'object') {
          return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys(value[key])]));
        }
        return value;
      }

      function bodyText(body) {
        if (body.text == null) return null;
        if (body.kind === 'json' && !body.truncated) {
          try { return JSON.stringify(sortKeys(JSON.parse(body.text)), null, 2); } catch (error) { return body.text; }
        }
        return body.text;
      }

      function hexView(base64) {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const limit = Math.min(bytes.length, 4096);
        const lines = [];
        for (let offset = 0; offset < limit; offset += 16) {
          const row = bytes.slice(offset, Math.min(offset + 16, limit));
          const hex = Array.from(row, (b) => b.toString(16).padStart(2, '0')).join(' ');
          const ascii = Array.from(row, (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
          lines.push(offset.toString(16).padStart(8, '0') + '  ' + hex.padEnd(47) + '  ' + ascii);
        }
        if (bytes.length > limit) lines.push('… ' + (bytes.length - limit) + ' more bytes kept, not shown');
        return lines.join('\n');
      }

      function renderBody(body, otherBody) {
        const note = body.truncated ? el('p', { class: 'note' }, 'First ' + (body.text != null ? 'part' : 'bytes') + ' of ' + body.size + ' bytes kept.') : null;
        const type = body.contentType ? body.contentType + ', ' : '';
        const label = el('p', { class: 'note' }, body.kind === 'empty' ? 'No body.' : type + body.size + ' bytes, shown as ' + (body.kind === 'binary' ? 'hex' : body.kind) + '.');
        if (body.kind === 'empty') return label;
        if (body.kind === 'image' && !body.truncated && /^image\/[a-z0-9.+-]+$/i.test((body.contentType || '').split(';')[0].trim())) {
          const img = el('img', { class: 'body', alt: 'image body', src: 'data:' + body.contentType.split(';')[0].trim() + ';base64,' + body.base64 });
          return el('div', null, label, img);
        }
        const text = bodyText(body);
        if (text == null) return el('div', null, label, note, el('pre', { class: 'body hex' }, hexView(body.base64 || '')));
        const pre = el('pre', { class: 'body' });
        const otherText = otherBody ? bodyText(otherBody) : null;
        if (otherText != null) {
          const theirs = new Set(otherText.split('\n'));
          for (const line of text.split('\n')) pre.append(el('span', { class: theirs.has(line) ? 'line' : 'line differs' }, line + '\n'));
        } else {
          pre.textContent = text;
        }
        return el('div', null, label, note, pre);
      }

      async function loadCassettes() {
        try {
          const overview = await getJSON('cassettes');
          $('mode').textContent = overview.mode;
          const parts = overview.cassettes.map((cassette) => el('div', { class: 'cassette' },
            el('h3', null, cassette.name + ' ', el('span', { class: 'muted' }, '(' + cassette.count + ' interactions' +
              (cassette.count > cassette.interactions.length ? ', first ' + cassette.interactions.length + ' listed' : '') + ')')),
            cassette.interactions.length ? el('table', null,
              el('thead', null, el('tr', null, el('th', null, '#'), el('th', null, 'Method'), el('th', null, 'URL'), el('th', null, 'Status'), el('th', null, 'Plays'))),
              el('tbody', null, cassette.interactions.map((entry) => el('tr', null, el('td', null, entry.index), el('td', null, entry.method),
                el('td', { class: 'url' }, entry.url), el('td', null, entry.status), el('td', null, entry.plays))))) : el('p', { class: 'muted' }, 'No interactions.')));
          if (overview.recordedThisRun != null) parts.push(el('p', null, 'Recorded in this run: ' + overview.recordedThisRun + ' (not served back in this run).'));
          $('cassettes').replaceChildren(...(parts.length ? parts : [el('p', { class: 'muted' }, 'No cassettes loaded.')]));
        } catch (error) {
          $('cassettes').replaceChildren(el('p', { class: 'error' }, error.message));
        }
        try {
          const listing = await getJSON('stubs');
          $('stubs').replaceChildren(listing.stubs.length ? el('table', null,
            el('thead', null, el('tr', null, el('th', null, 'Id'), el('th', null, 'Name'), el('th', null, 'Priority'), el('th', null, 'Pattern'))),
            el('tbody', null, listing.stubs.map((stub) => el('tr', null, el('td', null, stub.id), el('td', null, stub.name || ''), el('td', null, stub.priority),
              el('td', { class: 'url' }, stub.definition && stub.definition.request ? JSON.stringify(stub.definition.request) : '')))))
            : el('p', { class: 'muted' }, 'No stubs.'));
        } catch (error) {
          $('stubs').replaceChildren(el('p', { class: 'error' }, error.message));
        }
      }

      let cassettesPending = null;
      function refreshCassettesSoon() {
        if (cassettesPending) return;
        cassettesPending = setTimeout(() => { cassettesPending = null; loadCassettes(); }, 500);
      }

      // The fragment: `#exchange=ID` opens an exchange, `#unmatched` the newest one nothing served,
      // `#filter=TEXT` fills the filter box; joined with `&`.
      function openFromHash() {
        const options = {};
        for (const part of location.hash.slice(1).split('&')) {
          if (!part) continue;
          const [name, value] = part.split('=');
          options[decodeURIComponent(name)] = value == null ? '' : decodeURIComponent(value.replace(/\+/g, ' '));
        }
        if (options.filter != null) {
          $('filter').value = options.filter;
          state.filter = options.filter.trim().toLowerCase();
          renderList();
        }
        if (/^\d+$/.test(options.exchange || '')) return openExchange(Number(options.exchange));
        if (options.unmatched != null) {
          const newest = [...state.exchanges.values()].filter((x) => x.outcome === 'unmatched' || x.outcome === 'exhausted').sort((a, b) => b.id - a.id)[0];
          if (newest) return openExchange(newest.id);
        }
      }

      function onEvent(type, data) {
        const status = $('live');
        if (type === 'open') {
          status.textContent = 'live'; status.className = 'pill live';
          loadExchanges().catch(() => {});
        } else if (type === 'error') {
          status.textContent = 'reconnecting…'; status.className = 'pill off';
        } else if (type === 'exchange') {
          remember(JSON.parse(data)); renderList(); refreshCassettesSoon();
        } else if (type === 'update') {
          const x = JSON.parse(data);
          remember(x); renderList();
          if (state.selected === x.id) openExchange(x.id);
        } else if (type === 'reset') {
          state.exchanges.clear(); renderList(); loadCassettes();
        }
      }

      function listenInPage() {
        if (typeof EventSource === 'undefined') { $('live').textContent = 'no live updates'; return; }
        const events = new EventSource(base + 'events');
        events.onopen = () => onEvent('open');
        events.onerror = () => onEvent('error');
        for (const type of ['exchange', 'update', 'reset']) events.addEventListener(type, (event) => onEvent(type, event.data));
      }

      function listen() {
        let worker = null;
        try { worker = typeof Worker === 'undefined' ? null : new Worker(base + 'ui/live.js'); } catch (error) { worker = null; }
        if (!worker) return listenInPage();
        worker.onmessage = (message) => {
          if (message.data.type === 'unsupported') { worker.terminate(); listenInPage(); } else onEvent(message.data.type, message.data.data);
        };
        worker.onerror = () => { worker.terminate(); listenInPage(); };
      }

      $('filter').addEventListener('input', (event) => { state.filter = event.target.value.trim().toLowerCase(); renderList(); });
      $('reset').addEventListener('click', async () => {
        const response = await fetch(base + 'reset', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
        if (response.ok) { state.exchanges.clear(); state.selected = null; renderList(); loadCassettes(); }
      });
      window.addEventListener('hashchange', openFromHash);

      loadExchanges().then(openFromHash, (error) => { $('empty').textContent = error.message; });
      loadCassettes();
      listen();
    })();

    """#

    /// The worker that reads the live stream.
    static let live = #"""
    'use strict';
    if (typeof EventSource === 'undefined') {
      postMessage({ type: 'unsupported' });
    } else {
      const events = new EventSource('/__tapedeck/events');
      events.onopen = () => postMessage({ type: 'open' });
      events.onerror = () => postMessage({ type: 'error' });
      for (const type of ['exchange', 'update', 'reset']) events.addEventListener(type, (event) => postMessage({ type, data: event.data }));
    }

    """#
}
