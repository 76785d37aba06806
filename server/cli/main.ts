// The operator CLI (`npm run compaction -- <command>`, bin `compaction`):
// the server's verbs on the server's runtime, without HTTP. Every command
// opens the runtime on DATABASE_URL, runs one verb (following the operation
// it starts until this process has nothing left to do) and closes it.
import fs from "node:fs";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { isAppError } from "@/server/errors";
import type { OpenRuntime } from "@/server/runtime";
import { openCliRuntime } from "./cli-runtime";
import { EXIT, exitCodeForError, type ExitCode } from "./exit-codes";
import { createOutput } from "./output";
import { parseAge, parseExpiryAge } from "./parse-age";
import { analyzeCommand, cancelCommand, disableCommand, enableCommand, runCommand, statusCommand, type CommandEnv } from "./commands/compaction";
import { backupCreateCommand, backupListCommand, backupVerifyCommand } from "./commands/backups";
import { lockClearCommand, lockShowCommand } from "./commands/maintenance-lock";
import { checkpointsCommand } from "./commands/checkpoints";
import { holdCommand, restoreCommand } from "./commands/task-compaction";
import {
  cleanupScheduleCommand,
  expiryAnalyzeCommand,
  expiryCancelCommand,
  expiryDisableCommand,
  expiryEnableCommand,
  expiryRunCommand,
  expiryStatusCommand,
} from "./commands/checkpoint-schedule";

export type CliOptions = {
  argv: string[];
  env?: NodeJS.ProcessEnv;
  /** Whether stdout is a terminal (progress bars only then). */
  tty?: boolean;
  /** Aborted on SIGINT/SIGTERM: a followed operation is cancelled at its next batch. */
  signal?: AbortSignal;
};

const AGE_HELP = "age as <n>m (months) or <n>w (weeks), e.g. 3m or 12w";
const OUTSIDE_WINDOW_HELP = "run the pass now even outside MAINTENANCE_WINDOW (refused there otherwise)";

const EXPIRY_AGE_HELP = "period as <n>d (days), <n>w (weeks) or <n>m (months), e.g. 90d, 12w or 6m";

function expiryAgeArgument(text: string) {
  const age = parseExpiryAge(text);
  if (!age) throw new InvalidArgumentError(EXPIRY_AGE_HELP);
  return age;
}

function ageArgument(text: string) {
  const age = parseAge(text);
  if (!age) throw new InvalidArgumentError(AGE_HELP);
  return age;
}

export async function runCli(options: CliOptions): Promise<ExitCode> {
  const env = options.env ?? process.env;
  const signal = options.signal ?? new AbortController().signal;
  let code: ExitCode = EXIT.done;

  const program = new Command("compaction")
    .description("Messages compaction, backups and checkpoint cleanup on the server's database (DATABASE_URL), beside a live server")
    .option("--json", "print the API's JSON answer instead of human lines")
    .exitOverride()
    .showHelpAfterError();

  // Opens the runtime for one verb, maps typed errors to exit codes and
  // always closes the database again.
  const withRuntime = (verb: (commandEnv: CommandEnv) => Promise<ExitCode> | ExitCode) => async () => {
    const out = createOutput({ json: Boolean(program.opts().json) });
    let rt: OpenRuntime | null = null;
    try {
      rt = await openCliRuntime(env);
      const inode = fs.statSync(rt.dbFile).ino;
      code = await verb({ rt, out, tty: options.tty ?? false, signal });
      // A restore on the server swaps the file under this open connection:
      // what this command changed after that went to the replaced file.
      if (fs.statSync(rt.dbFile).ino !== inode) {
        out.error("conflict", "The database file was replaced (a restore) while this command ran; run it again.");
        code = EXIT.conflict;
      }
    } catch (error) {
      if (isAppError(error)) {
        out.error(error.code, error.message);
        code = exitCodeForError(error.code);
      } else {
        // The operator's own console: the message helps (a malformed
        // DATABASE_URL, an unreadable file); never a stack.
        out.error("internal_error", error instanceof Error ? `${error.name}: ${error.message}` : "unexpected failure");
        code = EXIT.failed;
      }
    } finally {
      await rt?.stop();
    }
  };

  program.command("status").description("policy, preparation, active and latest operations").action(withRuntime((e) => statusCommand(e)));
  program
    .command("analyze")
    .description("count what a policy would compact (changes nothing)")
    .option("--age <age>", `${AGE_HELP} (default: the policy's)`, ageArgument)
    .action(async (opts: { age?: ReturnType<typeof ageArgument> }) => withRuntime((e) => analyzeCommand(e, { age: opts.age ?? null }))());
  program
    .command("enable")
    .description("enable compaction; the preparation choice is required the first time")
    .option("--age <age>", `${AGE_HELP} (default: the policy's)`, ageArgument)
    .addOption(new Option("--backup", "create a verified backup before the first change").conflicts("skipBackup"))
    .addOption(new Option("--skip-backup", "explicitly skip the backup"))
    .option("--until-done", "follow the first pass through all its slices")
    .option("--outside-window", OUTSIDE_WINDOW_HELP)
    .action(async (opts: { age?: ReturnType<typeof ageArgument>; backup?: boolean; skipBackup?: boolean; untilDone?: boolean; outsideWindow?: boolean }) =>
      withRuntime((e) =>
        enableCommand(e, {
          age: opts.age ?? null,
          preparation: opts.backup ? "backup" : opts.skipBackup ? "skip" : undefined,
          untilDone: Boolean(opts.untilDone),
          outsideWindow: Boolean(opts.outsideWindow),
        }),
      )(),
    );
  program.command("disable").description("disable compaction (stops a pass at its next batch)").action(withRuntime((e) => disableCommand(e)));
  program
    .command("run")
    .description("run a compaction pass now (one slice unless --until-done)")
    .option("--until-done", "continue slice after slice, with the server's pauses, until the pass ends")
    .option("--outside-window", OUTSIDE_WINDOW_HELP)
    .action(async (opts: { untilDone?: boolean; outsideWindow?: boolean }) =>
      withRuntime((e) => runCommand(e, { untilDone: Boolean(opts.untilDone), outsideWindow: Boolean(opts.outsideWindow) }))(),
    );
  program
    .command("cancel")
    .description("cancel the active operation (or the one named), wherever it runs")
    .argument("[operationId]")
    .action(async (operationId: string | undefined) => withRuntime((e) => cancelCommand(e, { operationId }))());

  const backup = program.command("backup").description("database backups");
  backup.command("create").description("snapshot, verify and publish a backup").action(withRuntime((e) => backupCreateCommand(e)));
  backup.command("list").description("the published backups, newest first").action(withRuntime((e) => backupListCommand(e)));
  backup
    .command("verify")
    .description("check a backup: regular file, integrity, preparation receipt")
    .argument("<name>")
    .action(async (name: string) => withRuntime((e) => backupVerifyCommand(e, name))());

  const lock = program.command("lock").description("the maintenance lock, when it names another host (which no process here can check)");
  lock.command("show").description("the lock of another host that holds maintenance, if any").action(withRuntime((e) => lockShowCommand(e)));
  lock
    .command("clear")
    .description("clear that lock, once nothing runs on its host any more")
    .requiredOption("--id <id>", "the lock's id, as `lock show` prints it")
    .requiredOption("--confirm <host>", "the host the lock names (its id when the host is unreadable)")
    .action(async (opts: { id: string; confirm: string }) => withRuntime((e) => lockClearCommand(e, opts))());

  program
    .command("hold")
    .description("show a task's hold, or put it on hold (--on) or take it off (--off): a held task is never compacted")
    .requiredOption("--task <id>", "the task's id")
    .addOption(new Option("--on", "put the task on hold").conflicts("off"))
    .addOption(new Option("--off", "take the task off hold"))
    .action(async (opts: { task: string; on?: boolean; off?: boolean }) =>
      withRuntime((e) => holdCommand(e, { taskId: opts.task, held: opts.on ? true : opts.off ? false : null }))(),
    );

  program
    .command("restore")
    .description("bring a task's removed tool payloads back from a backup (only rows the backup proves unchanged since), putting it on hold")
    .requiredOption("--task <id>", "the task's id")
    .option("--backup <name>", "the backup to read (default: the newest taken before the task's payloads were removed)")
    .option("--dry-run", "report what would be restored, per message, and change nothing")
    .option("--no-hold", "leave the task off hold (the next pass may remove the payloads again)")
    .action(async (opts: { task: string; backup?: string; dryRun?: boolean; hold: boolean }) =>
      withRuntime((e) => restoreCommand(e, { taskId: opts.task, backup: opts.backup, dryRun: Boolean(opts.dryRun), hold: opts.hold }))(),
    );

  const checkpoints = program.command("checkpoints").description("LangGraph checkpoint storage");
  checkpoints.command("analyze").description("what a cleanup would remove (changes nothing)").action(withRuntime((e) => checkpointsCommand(e, "analysis")));
  checkpoints.command("run").description("remove superseded checkpoints and orphan writes").action(withRuntime((e) => checkpointsCommand(e, "cleanup")));

  checkpoints
    .command("schedule")
    .description("show the automatic daily checkpoint cleanup, or turn it on (--on) or off (--off)")
    .addOption(new Option("--on", "run the cleanup daily (inside MAINTENANCE_WINDOW when set)").conflicts("off"))
    .addOption(new Option("--off", "stop the daily cleanup"))
    .action(async (opts: { on?: boolean; off?: boolean }) => withRuntime((e) => cleanupScheduleCommand(e, { enabled: opts.on ? true : opts.off ? false : null }))());

  const expiry = checkpoints.command("expiry").description("thread expiry: delete threads idle longer than a period, whole");
  expiry.command("status").description("policy, preparation, next pass, latest analysis and run").action(withRuntime((e) => expiryStatusCommand(e)));
  expiry
    .command("analyze")
    .description("count what a period would expire now: threads, checkpoints, bytes (changes nothing)")
    .option("--age <age>", `${EXPIRY_AGE_HELP} (default: the policy's)`, expiryAgeArgument)
    .action(async (opts: { age?: ReturnType<typeof expiryAgeArgument> }) => withRuntime((e) => expiryAnalyzeCommand(e, { age: opts.age ?? null }))());
  expiry
    .command("enable")
    .description("enable thread expiry; the backup choice is required the first time and when the period shortens")
    .option("--age <age>", `${EXPIRY_AGE_HELP} (default: the policy's)`, expiryAgeArgument)
    .addOption(new Option("--backup", "create a verified backup before the first thread is deleted").conflicts("skipBackup"))
    .addOption(new Option("--skip-backup", "explicitly skip the backup"))
    .option("--outside-window", OUTSIDE_WINDOW_HELP)
    .action(async (opts: { age?: ReturnType<typeof expiryAgeArgument>; backup?: boolean; skipBackup?: boolean; outsideWindow?: boolean }) =>
      withRuntime((e) =>
        expiryEnableCommand(e, { age: opts.age ?? null, preparation: opts.backup ? "backup" : opts.skipBackup ? "skip" : undefined, outsideWindow: Boolean(opts.outsideWindow) }),
      )(),
    );
  expiry.command("disable").description("disable thread expiry (a running pass stops at its next thread)").action(withRuntime((e) => expiryDisableCommand(e)));
  expiry
    .command("run")
    .description("run a thread expiry pass now")
    .option("--outside-window", OUTSIDE_WINDOW_HELP)
    .action(async (opts: { outsideWindow?: boolean }) => withRuntime((e) => expiryRunCommand(e, { outsideWindow: Boolean(opts.outsideWindow) }))());
  expiry
    .command("cancel")
    .description("cancel the running or waiting thread expiry operation (or the one named)")
    .argument("[operationId]")
    .action(async (operationId: string | undefined) => withRuntime((e) => expiryCancelCommand(e, { operationId }))());

  for (const command of [program, backup, lock, checkpoints, expiry]) command.exitOverride();
  try {
    await program.parseAsync(options.argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are not errors.
      return error.exitCode === 0 ? EXIT.done : EXIT.usage;
    }
    throw error;
  }
  return code;
}
