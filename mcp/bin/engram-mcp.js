#!/usr/bin/env node
// `npx engram-mcp [--dir DIR] [--namespace NS] [--llm-url URL --llm-model MODEL] [--no-sampling] [--keyword-only]`
// Speaks MCP over stdin/stdout; logs go to stderr. `--help` lists every option.
import { main } from "../src/server.js";

main(process.argv.slice(2));
