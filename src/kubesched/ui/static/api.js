// The JSON API, one function per route; every other module goes through these.
export class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function answer(res) {
  if (!res.ok) throw new ApiError(res.status, (await res.text()).trim() || res.statusText);
  return res;
}

export async function getJSON(path, params = {}) {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== ""));
  const url = q.toString() ? `${path}?${q}` : path;
  return (await answer(await fetch(url, { headers: { Accept: "application/json" } }))).json();
}

export async function post(path, body) {
  const res = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: body === undefined ? "{}" : JSON.stringify(body),
  });
  return (await answer(res)).json();
}

export const api = {
  summary: () => getJSON("/api/summary"),
  nodes: (params) => getJSON("/api/nodes", params),
  node: (name) => getJSON("/api/node", { name }),
  pods: (params) => getJSON("/api/pods", params),
  decision: (pod) => getJSON("/api/decision", { pod }),
  reload: () => post("/api/reload"),
};
