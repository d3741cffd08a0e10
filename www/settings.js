// The optional LLM settings: kept in this page's memory, and in localStorage only when the person
// ticks "remember on this device" (an API key is a secret; the default is to forget it on reload).
const KEY = "engram-www-llm";

/** The remembered settings, or null. */
export function loadSettings() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "null");
    if (saved && typeof saved.baseURL === "string" && typeof saved.model === "string") return { ...saved, remember: true };
  } catch {
    // unreadable: as if nothing was remembered
  }
  return null;
}

/** Keeps `settings` on this device when asked to, and removes what was kept otherwise. */
export function storeSettings(settings) {
  try {
    if (settings?.remember) localStorage.setItem(KEY, JSON.stringify({ baseURL: settings.baseURL, model: settings.model, apiKey: settings.apiKey }));
    else localStorage.removeItem(KEY);
  } catch {
    // storage refused (private mode, quota): the settings still hold for this visit
  }
}

/** Reads and checks the form; throws a message for the person when something is missing. */
export function readForm({ url, model, key, remember }) {
  const baseURL = url.value.trim();
  if (!/^https?:\/\//i.test(baseURL)) throw new Error("The base URL must start with http:// or https://");
  if (!model.value.trim()) throw new Error("Name the model");
  return { baseURL, model: model.value.trim(), apiKey: key.value || undefined, remember: remember.checked };
}
