// The stdio transport engram-mcp serves on: newline-delimited JSON-RPC, as the MCP SDK's own, but
// one bad message never ends the session. The SDK's transport closes itself when a message outgrows
// its buffer (the process then exits 0 with nothing said) and drops unparsable lines unanswered, so
// the client waits forever. Here every line gets an answer or a log line:
// - a line over `maxMessageBytes` is skipped as it streams (never buffered whole) and answered
//   with Invalid Request, under the request's id when it can be read from the line's ends;
// - a line that is not JSON is answered with Parse error (id null);
// - JSON that is not a JSON-RPC message is answered with Invalid Request;
// - a request for a method MCP defines whose params do not fit it is answered with Invalid params
//   (the SDK would answer Internal error).
import process from "node:process";
import { ClientRequestSchema, ErrorCode, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/** Larger than Engram's largest input (an `ingest` of 32 MiB of text, escaped as JSON). */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 << 20;
/** How much of an oversized line's start and end is kept to find its id. */
const ENDS_KEPT = 1024;

/** The request schema of each method a client may call, by method name. */
const REQUEST_SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]));

const isId = (id) => typeof id === "string" || (typeof id === "number" && Number.isInteger(id));

/**
 * The id of an oversized request, read from the line's first or last bytes: clients write either
 * `{"jsonrpc":"2.0","id":7,...` or `...,"id":7}`. Null when neither end shows it.
 */
export function idAtEnds(head, tail) {
  const value = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")`;
  const atHead = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}`).exec(head);
  const atTail = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  const found = atHead?.[1] ?? atTail?.[1];
  if (found === undefined) return null;
  try {
    return JSON.parse(found);
  } catch {
    return null;
  }
}

/** An MCP `Transport` over a readable and a writable stream (stdin and stdout by default). */
export class LineTransport {
  constructor({ stdin = process.stdin, stdout = process.stdout, maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES, log = () => {} } = {}) {
    this._stdin = stdin;
    this._stdout = stdout;
    this._max = maxMessageBytes;
    this._log = log;
    this._parts = []; // the current line's chunks while it is within the limit
    this._size = 0; // the current line's bytes so far
    this._head = null; // an oversized line's first bytes (then its parts are dropped)
    this._tail = Buffer.alloc(0); // an oversized line's last bytes
    this._ondata = (chunk) => this._take(chunk);
    this._onerror = (error) => this.onerror?.(error);
  }

  async start() {
    this._stdin.on("data", this._ondata);
    this._stdin.on("error", this._onerror);
  }

  _take(chunk) {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl === -1 ? chunk.length : nl;
      this._append(chunk.subarray(from, end));
      if (nl === -1) return;
      this._endLine();
      from = nl + 1;
    }
  }

  _append(piece) {
    if (piece.length === 0) return;
    this._size += piece.length;
    if (this._head === null && this._size <= this._max) {
      this._parts.push(piece);
      return;
    }
    if (this._head === null) {
      // Over the limit: keep the start (to read the id) and from now on only a sliding end.
      this._head = Buffer.concat(this._parts).subarray(0, ENDS_KEPT);
      this._parts = [];
    }
    const tail = Buffer.concat([this._tail, piece]);
    this._tail = tail.subarray(Math.max(0, tail.length - ENDS_KEPT));
  }

  _endLine() {
    const size = this._size;
    if (this._head !== null) {
      const id = idAtEnds(this._head.toString("utf8"), this._tail.toString("utf8"));
      this._head = null;
      this._tail = Buffer.alloc(0);
      this._size = 0;
      this._log(`refused a message of ${size} bytes (the limit is ${this._max}; --max-message-mib)`);
      this._answer(id, ErrorCode.InvalidRequest, `message of ${size} bytes exceeds this server's limit of ${this._max} bytes (engram-mcp --max-message-mib)`);
      return;
    }
    const line = Buffer.concat(this._parts).toString("utf8").replace(/\r$/, "");
    this._parts = [];
    this._size = 0;
    if (line.trim() === "") return;
    this._handle(line);
  }

  _handle(line) {
    let value;
    try {
      value = JSON.parse(line);
    } catch (e) {
      this._answer(null, ErrorCode.ParseError, `Parse error: ${e.message}`);
      return;
    }
    const isObject = value !== null && typeof value === "object" && !Array.isArray(value);
    const id = isObject && isId(value.id) ? value.id : null;
    if (!isObject || value.jsonrpc !== "2.0") {
      this._answer(id, ErrorCode.InvalidRequest, 'Invalid Request: expected a JSON-RPC 2.0 object ({"jsonrpc": "2.0", ...})');
      return;
    }
    const isRequest = typeof value.method === "string" && id !== null;
    const schema = isRequest ? REQUEST_SCHEMAS.get(value.method) : undefined;
    if (schema) {
      const fits = schema.safeParse({ method: value.method, ...(value.params !== undefined ? { params: value.params } : {}) });
      if (!fits.success) {
        this._answer(id, ErrorCode.InvalidParams, `Invalid params for ${value.method}: ${summarize(fits.error)}`);
        return;
      }
    }
    const message = JSONRPCMessageSchema.safeParse(value);
    if (!message.success) {
      if (isRequest || (id !== null && typeof value.method !== "string" && !("result" in value) && !("error" in value))) {
        this._answer(id, ErrorCode.InvalidRequest, `Invalid Request: ${summarize(message.error)}`);
      } else {
        // A notification or a response is never answered; the log says what was dropped.
        this._log(`dropped a malformed ${typeof value.method === "string" ? `notification (${value.method})` : "message"}: ${summarize(message.error)}`);
      }
      return;
    }
    this.onmessage?.(message.data);
  }

  _answer(id, code, message) {
    this.send({ jsonrpc: "2.0", id, error: { code, message } }).catch((e) => this.onerror?.(e));
  }

  send(message) {
    return new Promise((resolve) => {
      if (this._stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this._stdout.once("drain", resolve);
    });
  }

  async close() {
    this._stdin.off("data", this._ondata);
    this._stdin.off("error", this._onerror);
    if (this._stdin.listenerCount("data") === 0) this._stdin.pause();
    this._parts = [];
    this._head = null;
    this.onclose?.();
  }
}

/** The first issues of a schema failure, on one line. */
function summarize(error) {
  const issues = error?.issues ?? [];
  if (issues.length === 0) return String(error?.message ?? error);
  return issues
    .slice(0, 3)
    .map((i) => `${i.path?.length ? i.path.join(".") : "(root)"}: ${i.message}`)
    .join("; ");
}
