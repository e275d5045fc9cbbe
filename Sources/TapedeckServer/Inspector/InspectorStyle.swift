/// The inspector page's style sheet, `GET /__tapedeck/ui/style.css`: system fonts only.
enum InspectorStyle {
    /// The style sheet.
    static let css = #"""
    :root { --fg: #1d2330; --muted: #667085; --line: #d9dee7; --bg: #f6f7f9; --panel: #fff; --accent: #2556c4;
      --played: #1b7f3b; --recorded: #7a3fc4; --unmatched: #b42318; --exhausted: #b54708; --forwarded: #475467;
      --mark-recorded: #d1fadf; --mark-received: #fee4e2; --mark-path: #fef0c7; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
      color: var(--fg); background: var(--bg); }
    header { display: flex; gap: 10px; align-items: center; padding: 10px 16px; background: var(--panel);
      border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 1; }
    h1 { font-size: 17px; margin: 0 6px 0 0; }
    h2 { font-size: 15px; margin: 0 0 8px; }
    h3 { font-size: 14px; margin: 14px 0 6px; }
    h4 { font-size: 13px; margin: 0 0 6px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
    h5 { font-size: 13px; margin: 0 0 4px; }
    #filter { flex: 1; min-width: 160px; padding: 6px 10px; border: 1px solid var(--line); border-radius: 6px; font: inherit; }
    button { font: inherit; padding: 6px 12px; border: 1px solid var(--accent); background: var(--accent); color: #fff;
      border-radius: 6px; cursor: pointer; }
    button:hover { filter: brightness(1.1); }
    .pill { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: #eef2f6; color: var(--muted); }
    .pill.live { background: #d1fadf; color: var(--played); }
    .pill.off { background: #fef0c7; color: var(--exhausted); }
    main { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; padding: 12px 16px; }
    section { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px; }
    #list-pane .scroll { max-height: calc(100vh - 150px); overflow: auto; }
    #detail-pane { max-height: calc(100vh - 100px); overflow: auto; }
    #cassettes-pane { margin: 0 16px 16px; }
    table { border-collapse: collapse; width: 100%; }
    th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
    th { font-size: 12px; color: var(--muted); font-weight: 600; background: var(--panel); position: sticky; top: 0; }
    #exchanges tbody tr { cursor: pointer; }
    #exchanges tbody tr:hover { background: #f0f4ff; }
    #exchanges tbody tr.selected { background: #dfe8fb; }
    .url { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; overflow-wrap: anywhere; }
    .time { white-space: nowrap; color: var(--muted); font-size: 12px; }
    .muted, .meta { color: var(--muted); }
    .meta { margin: 2px 0 8px; font-size: 12.5px; }
    .badge { display: inline-block; font-size: 11.5px; font-weight: 600; padding: 1px 7px; border-radius: 9px; color: #fff; }
    .badge.played { background: var(--played); } .badge.recorded { background: var(--recorded); }
    .badge.unmatched { background: var(--unmatched); } .badge.exhausted { background: var(--exhausted); }
    .badge.forwarded { background: var(--forwarded); } .badge.fault { background: var(--exhausted); }
    .diagnosis { border: 1px solid #fda29b; background: #fffbfa; border-radius: 8px; padding: 10px; margin: 8px 0 12px; }
    .diagnosis h3 { margin-top: 0; color: var(--unmatched); }
    .side-by-side { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 10px; }
    .col { min-width: 0; }
    .candidate { border: 1px solid var(--line); border-radius: 6px; padding: 8px; margin-bottom: 8px; background: var(--panel); }
    .failures { margin: 4px 0 8px; padding-left: 18px; }
    .rule { display: inline-block; font-weight: 600; font-size: 12px; padding: 0 6px; border-radius: 4px; background: #fee4e2; color: var(--unmatched); }
    mark { padding: 0 2px; border-radius: 3px; background: var(--mark-path); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
    mark.recorded { background: var(--mark-recorded); } mark.received { background: var(--mark-received); }
    details.meta summary { cursor: pointer; }
    details.meta ul { margin: 4px 0; padding-left: 18px; }
    .hint { font-size: 12.5px; color: var(--muted); margin: 6px 0 0; }
    .kv td:first-child { white-space: nowrap; color: var(--muted); width: 1%; font-size: 12.5px; }
    .kv td { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; word-break: break-all; }
    tr.differs td, .line.differs { background: var(--mark-received); }
    .candidate tr.differs td, .candidate .line.differs { background: var(--mark-recorded); }
    pre.body { margin: 4px 0; padding: 8px; background: #f8fafc; border: 1px solid var(--line); border-radius: 6px;
      max-height: 420px; overflow: auto; font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; word-break: break-all; }
    .line { display: block; }
    img.body { max-width: 100%; max-height: 360px; min-width: 64px; image-rendering: pixelated; border: 1px solid var(--line); background: repeating-conic-gradient(#eee 0 25%, #fff 0 50%) 0 0 / 16px 16px; }
    .note { font-size: 12px; color: var(--muted); }
    .error { color: var(--unmatched); }
    .cassette { margin-bottom: 14px; }
    @media (max-width: 900px) { main, .side-by-side { grid-template-columns: minmax(0, 1fr); } }

    """#
}
