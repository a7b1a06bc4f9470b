// The review inbox's only script (served from the inbox itself; the pages allow no other).
// It counts deadlines down and applies the live updates of GET /events: the list reloads its
// rows, a review page reloads when its review is decided. Pages work without it.
"use strict";
(() => {
  const pad = (n) => String(n).padStart(2, "0");
  const span = (seconds) => {
    const s = Math.max(0, Math.floor(seconds));
    if (s < 60) return `${s}s`;
    if (s < 3600) return `${Math.floor(s / 60)}m`;
    if (s < 86400) return `${Math.floor(s / 3600)}h${pad(Math.floor((s % 3600) / 60))}m`;
    return `${Math.floor(s / 86400)}d${pad(Math.floor((s % 86400) / 3600))}h`;
  };

  const tick = () => {
    const now = Date.now();
    for (const el of document.querySelectorAll("[data-deadline]")) {
      const at = Date.parse(el.dataset.deadline);
      if (Number.isNaN(at)) continue;
      const left = (at - now) / 1000;
      el.textContent = left > 0 ? `${span(left)} left` : `overdue by ${span(-left)}`;
      el.classList.toggle("overdue", left <= 0);
      el.classList.toggle("soon", left > 0 && left < 3600);
    }
  };
  tick();
  setInterval(tick, 1000);

  const body = document.body;
  const live = body.dataset.live;
  if (!live || !("EventSource" in window)) return;

  let submitting = false;
  for (const form of document.querySelectorAll("form[data-resolve]")) {
    form.addEventListener("submit", () => {
      submitting = true;
    });
  }

  const rows = document.getElementById("rows");
  let busy = false;
  let again = false;
  const refresh = async () => {
    if (!rows) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        const query = rows.dataset.query;
        const response = await fetch(`/reviews/rows${query ? `?${query}` : ""}`, {
          credentials: "same-origin",
          cache: "no-store",
        });
        if (response.status === 401) {
          location.assign("/signin");
          return;
        }
        if (!response.ok) break;
        const fragment = document.createElement("template");
        fragment.innerHTML = await response.text();
        rows.replaceChildren(fragment.content);
        tick();
      } while (again);
    } catch (error) {
      console.warn("inbox: could not reload the list", error);
    } finally {
      busy = false;
    }
  };

  const reason = document.getElementById("reason");
  const reload = () => {
    if (!submitting) location.reload();
  };
  const about = (event) => {
    try {
      return JSON.parse(event.data).action_id === body.dataset.action;
    } catch {
      return false;
    }
  };

  const source = new EventSource("/events");
  let opened = 0;
  source.addEventListener("open", () => {
    opened += 1;
    if (opened === 1) {
      body.dataset.connected = "true";
      return;
    }
    // Reconnected: what happened meanwhile was not streamed.
    if (live === "list") refresh();
    else if (!reason || !reason.value.trim()) reload();
  });
  if (live === "list") {
    source.addEventListener("review", refresh);
    source.addEventListener("decided", refresh);
  } else {
    source.addEventListener("decided", (event) => {
      if (about(event)) reload();
    });
    if (body.dataset.state === "settling") setTimeout(reload, 2000);
  }
  window.addEventListener("pagehide", () => source.close());
})();
