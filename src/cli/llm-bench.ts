// llm-bench: measures a running LLM engine and submits the result (see `llm-bench --help`).
//   npx llm-bench measure --base-url http://localhost:8080 ...    or    npm run measure -- ...
import { run } from './llm-bench/commands.ts';

const code = await run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});
// Exit once stdout is flushed (idle keep-alive sockets would otherwise hold the process).
process.stdout.write('', () => process.exit(code));
