// The JS of the repository (facade, MCP server, demo page, tests, benchmarks, scripts): ESLint's
// recommended rules, in browsers and Node alike. Formatting is Prettier's (.prettierrc.json).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["target/", "pkg/", "**/node_modules/", "models/", ".cache/", "www/vendor/", "pkg-template/src/error-codes.js"] },
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "module",
      globals: { ...globals.browser, ...globals.node, ...globals.worker },
    },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
      "no-empty": ["error", { allowEmptyCatch: true }],
    },
  },
  { files: ["**/*.cjs"], languageOptions: { sourceType: "commonjs" } },
];
