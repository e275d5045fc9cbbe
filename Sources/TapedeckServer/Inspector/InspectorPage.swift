/// The inspector page, `GET /__tapedeck/ui`: plain HTML shipped in the binary. Its style and
/// script are ``InspectorStyle`` and ``InspectorScript``, served beside it; it loads nothing from
/// any other origin.
enum InspectorPage {
    /// The page.
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Tapedeck inspector</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="/__tapedeck/ui/style.css">
    </head>
    <body>
    <header>
      <h1>Tapedeck inspector</h1>
      <span id="mode" class="pill">…</span>
      <span id="live" class="pill off" title="Live updates from /__tapedeck/events">connecting…</span>
      <input id="filter" type="search" placeholder="Filter: method, URL, status, outcome, cassette…" aria-label="Filter exchanges" autocomplete="off">
      <button id="reset" type="button" title="POST /__tapedeck/reset: playback positions, stub scenarios, journal and this list back to the start">Reset playback</button>
    </header>
    <main>
      <section id="list-pane" aria-label="Exchanges">
        <h2>Exchanges <span id="count" class="muted"></span></h2>
        <div class="scroll">
          <table id="exchanges">
            <thead><tr><th>#</th><th>Time</th><th>Outcome</th><th>Method</th><th>URL</th><th>Status</th><th>Cassette / stub</th></tr></thead>
            <tbody></tbody>
          </table>
          <p id="empty" class="muted">No exchanges yet: send a request to this server and it appears here.</p>
        </div>
      </section>
      <section id="detail-pane" aria-label="Exchange">
        <p class="muted">Select an exchange to see its request and response; an unmatched one shows its nearest recordings and stubs.</p>
      </section>
    </main>
    <section id="cassettes-pane" aria-label="Cassettes">
      <h2>Cassettes</h2>
      <div id="cassettes"><p class="muted">Loading…</p></div>
      <h2>Stubs</h2>
      <div id="stubs"><p class="muted">Loading…</p></div>
    </section>
    <script src="/__tapedeck/ui/app.js"></script>
    </body>
    </html>

    """#
}
