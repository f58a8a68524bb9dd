/**
 * The dashboard's own browser script (served as `/_dashboard/assets/dashboard.js`, no build step):
 * it opens the event stream an element names in `data-stream`, prepends each event's row
 * (rendered and escaped on the server) to `#event-list`, and asks every live section whose
 * `data-areas` names the event's area (or `*`) to refresh itself through htmx.
 */
export const CLIENT_SCRIPT = `(() => {
  'use strict';
  const MAX_ROWS = 500;
  function start() {
    const holder = document.querySelector('[data-stream]');
    if (!holder || typeof EventSource === 'undefined') return;
    const list = document.getElementById('event-list');
    const label = document.querySelector('.live-label');
    const state = document.querySelector('.live-state');
    let last = 0;
    if (list && list.firstElementChild) last = Number(list.firstElementChild.getAttribute('data-seq')) || 0;
    const source = new EventSource(holder.getAttribute('data-stream'));
    source.addEventListener('open', () => {
      if (label) label.textContent = 'live';
      if (state) state.classList.add('is-live');
    });
    source.addEventListener('error', () => {
      if (label) label.textContent = 'reconnecting…';
      if (state) state.classList.remove('is-live');
    });
    // The world was replaced (a restore): what the page shows belongs to another world.
    source.addEventListener('reset', () => window.location.reload());
    source.addEventListener('world', (message) => {
      const event = JSON.parse(message.data);
      if (list && event.seq > last) {
        last = event.seq;
        list.insertAdjacentHTML('afterbegin', event.html);
        while (list.children.length > MAX_ROWS) list.lastElementChild.remove();
        const none = document.getElementById('no-events');
        if (none) none.remove();
        const count = document.getElementById('event-count');
        if (count) count.textContent = String(event.seq);
      }
      if (window.htmx) {
        for (const section of document.querySelectorAll('.live[data-areas]')) {
          const areas = section.getAttribute('data-areas').split(' ');
          if (areas.includes(event.area) || areas.includes('*')) window.htmx.trigger(section, 'world-change');
        }
      }
    });
    window.addEventListener('pagehide', () => source.close());
  }
  start();
})();
`;
