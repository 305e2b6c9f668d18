// Preloaded into every thread by count-npm-start.ts (`--import`, which worker threads inherit):
// each worker thread's SDK calls are told, by command name, to the main thread over a
// BroadcastChannel, since the feed thread's client is out of the main thread's reach.
// With COUNT_BY_TABLE=1 set, each name carries its table (`PutItem:incident-ledger-views`).
import { BroadcastChannel, isMainThread } from "node:worker_threads";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

globalThis.countThreadSends = true;
if (!isMainThread) {
  const channel = new BroadcastChannel("count-thread-sends");
  channel.unref();
  const original = DynamoDBClient.prototype.send;
  DynamoDBClient.prototype.send = function (command, ...rest) {
    const table = command.input?.TableName ?? Object.keys(command.input?.RequestItems ?? {})[0] ?? "";
    channel.postMessage(
      `${command.constructor.name.replace(/Command$/, "")}${process.env.COUNT_BY_TABLE ? `:${table}` : ""}`,
    );
    return original.call(this, command, ...rest);
  };
}
