/** The dashboard's stylesheet (served as `/_dashboard/assets/dashboard.css`): small, no framework, narrow screens first. */
export const STYLESHEET = `
:root { --bg: #f5f6f8; --card: #fff; --ink: #1b1d22; --muted: #667085; --line: #e3e6eb; --accent: #2948ff; --ok: #12733a; --warn: #9a6700; --bad: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--ink); }
a { color: var(--accent); }
code, pre, .seq { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .6rem 1rem; background: #111827; color: #fff; position: sticky; top: 0; z-index: 2; }
.top a { color: #e5e7eb; text-decoration: none; }
.brand { font-weight: 700; }
.top nav { display: flex; gap: .8rem; flex-wrap: wrap; }
.top nav a[aria-current="page"] { color: #fff; border-bottom: 2px solid #8ea2ff; }
.clock { margin-left: auto; display: flex; flex-wrap: wrap; align-items: center; gap: .4rem; }
.clock-now { font-variant-numeric: tabular-nums; }
.clock button { background: #374151; color: #fff; border: 1px solid #4b5563; border-radius: 6px; padding: .2rem .5rem; font: inherit; font-size: 13px; cursor: pointer; }
.clock button:hover, .clock button:focus-visible { background: #4b5563; }
main { padding: 1rem; max-width: 80rem; margin: 0 auto; }
h1 { font-size: 1.4rem; margin: .4rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.05rem; margin: 0 0 .6rem; }
.count { font-size: .9rem; color: var(--muted); font-weight: 400; }
.muted { color: var(--muted); } .small { font-size: 12.5px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1rem; margin: 0 0 1rem; }
.tabs { display: flex; flex-wrap: wrap; gap: .3rem; margin: 0 0 1rem; }
.tabs a { padding: .35rem .7rem; border-radius: 999px; background: var(--card); border: 1px solid var(--line); text-decoration: none; color: var(--ink); }
.tabs a[aria-current="page"] { background: var(--accent); border-color: var(--accent); color: #fff; }
.handle { font-size: .9rem; font-weight: 400; }
.filters { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; margin: 0 0 1rem; }
.filters label { display: flex; flex-direction: column; font-size: 12.5px; color: var(--muted); gap: .2rem; }
input, select, button, .button { font: inherit; padding: .4rem .6rem; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--ink); }
button, .button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; text-decoration: none; display: inline-block; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
th { font-size: 12.5px; color: var(--muted); font-weight: 600; white-space: nowrap; }
.fields { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; margin: 0 0 .6rem; }
.fields dt { color: var(--muted); } .fields dd { margin: 0; overflow-wrap: anywhere; }
.status { justify-self: start; display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: 12.5px; background: #eef0f4; white-space: nowrap; }
.status-confirmed, .status-delivered, .status-completed, .status-paid, .status-ok, .status-active, .status-open { background: #e3f6e8; color: var(--ok); }
.status-pending, .status-queued, .status-sent, .status-initiated, .status-ringing, .status-in-progress, .status-unread { background: #fff4d6; color: var(--warn); }
.status-failed, .status-busy, .status-no-answer, .status-canceled, .status-terminated { background: #fde8e8; color: var(--bad); }
.timeline { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .2rem .5rem; font-size: 12.5px; }
.events { list-style: none; padding: 0; margin: 0; }
.event { background: var(--card); border: 1px solid var(--line); border-left: 4px solid #c7cdd8; border-radius: 8px; padding: .45rem .7rem; margin-bottom: .4rem; }
.event-head { display: flex; flex-wrap: wrap; gap: .2rem .6rem; align-items: baseline; }
.event summary { color: var(--muted); font-size: 12.5px; cursor: pointer; overflow-wrap: anywhere; }
.area-wallet, .area-invoice, .area-card { border-left-color: #12b76a; } .area-email { border-left-color: #2e90fa; }
.area-sms, .area-call { border-left-color: #f79009; } .area-memory, .area-file { border-left-color: #7a5af8; }
.area-compute, .area-browser { border-left-color: #ee46bc; }
.json, .mail-text { background: #f8f9fb; border: 1px solid var(--line); border-radius: 6px; padding: .6rem; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 24rem; overflow: auto; margin: .4rem 0; }
.message { border-top: 1px solid var(--line); padding-top: .6rem; margin-top: .6rem; }
.attachments { padding-left: 1rem; }
.transcript { margin: .3rem 0; padding-left: 1.2rem; }
.notice { padding: .7rem 1rem; border-radius: 8px; } .notice-error { background: #fde8e8; color: var(--bad); } .notice-ok { background: #e3f6e8; color: var(--ok); }
.live-state .dot { display: inline-block; width: .55rem; height: .55rem; border-radius: 50%; background: #c7cdd8; }
.live-state.is-live .dot { background: #12b76a; }
.htmx-request { opacity: .7; }
@media (max-width: 640px) {
  main { padding: .6rem; }
  .clock { margin-left: 0; width: 100%; }
  thead { display: none; }
  table, tbody, tr, td { display: block; width: 100%; }
  tr { border-bottom: 1px solid var(--line); padding: .3rem 0; }
  td { border: 0; padding: .15rem .4rem; display: grid; grid-template-columns: 7.5rem 1fr; gap: .5rem; }
  td::before { content: attr(data-label); color: var(--muted); font-size: 12.5px; }
  .fields { grid-template-columns: 1fr; } .fields dd { margin-bottom: .3rem; }
}
`;
