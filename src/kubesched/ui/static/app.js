// The page's router: #/<page>?<params> loads static/pages/<page>.js and calls its render().
// The server tells each new version of the view (a reload, the live cluster changing) on an
// event stream; the current page is then drawn again.
import { api } from "./api.js";

const main = document.getElementById("main");
const banner = document.getElementById("banner");
const pages = new Set(main.dataset.pages.split(","));
let current = { page: "", params: new URLSearchParams() };
let drawing = 0;

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [page, query] = raw.split("?", 2);
  return { page: pages.has(page) ? page : "cluster", params: new URLSearchParams(query || "") };
}

export function navigate(page, params = {}) {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== ""));
  location.hash = `#/${page}${q.toString() ? "?" + q : ""}`;
}

export function showError(message) {
  banner.textContent = message || "";
  banner.hidden = !message;
}

async function draw() {
  current = parseHash();
  const mine = ++drawing;
  for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("active", a.dataset.page === current.page);
  try {
    const module = await import(`./pages/${current.page}.js`);
    if (mine !== drawing) return;
    const root = document.createElement("div");
    await module.render(root, current.params);
    if (mine !== drawing) return;
    main.replaceChildren(root);
  } catch (err) {
    if (mine === drawing) main.replaceChildren(Object.assign(document.createElement("pre"), { className: "message", textContent: String(err.message || err) }));
  }
}

function follow() {
  const source = new EventSource("/api/events");
  let version = null;
  source.addEventListener("version", (ev) => {
    const data = JSON.parse(ev.data);
    showError(data.error ? `The last update failed (the view shown is the one before): ${data.error}` : "");
    if (version !== null && data.version !== version) draw();
    version = data.version;
  });
}

document.getElementById("reload").addEventListener("click", async (ev) => {
  ev.target.disabled = true;
  try { await api.reload(); showError(""); } catch (err) { showError(err.message); }
  finally { ev.target.disabled = false; }
});

window.addEventListener("hashchange", draw);
draw();
follow();
