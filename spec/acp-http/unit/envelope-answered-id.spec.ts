import { answeredIdOf } from "../../../lib/acp-http/envelope.js";

const big = "x".repeat(100_000);

describe("answeredIdOf (the request an oversized message answers, from its head)", () => {
  it("reads a number or string id of a result or error response, whatever its key order", () => {
    expect(answeredIdOf(`{"jsonrpc":"2.0","id":42,"result":{"text":"${big}"}}`)).toBe(42);
    expect(answeredIdOf(`{"id":"a\\"b","jsonrpc":"2.0","error":{"code":1,"message":"${big}"}}`)).toBe('a"b');
    expect(answeredIdOf(` { "result" : [1, {"id": 7}], "id" : -3e2, "data":"${big}"}`)).toBe(-300);
    expect(answeredIdOf(`{"jsonrpc":"2.0","result":{"id":5,"nested":"${big}"},"id":9}`.slice(0, 200))).toBeUndefined();
  });

  it("is undefined for a request or notification, a null id, a batch, or an id past the head", () => {
    expect(answeredIdOf(`{"jsonrpc":"2.0","id":1,"method":"fs/write_text_file","params":{"c":"${big}"}}`)).toBeUndefined();
    expect(answeredIdOf(`{"jsonrpc":"2.0","method":"session/update","params":{"id":3,"result":"${big}"}}`)).toBeUndefined();
    expect(answeredIdOf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"${big}"}}`)).toBeUndefined();
    expect(answeredIdOf(`[{"jsonrpc":"2.0","id":1,"result":"${big}"}]`)).toBeUndefined();
    expect(answeredIdOf(`{"jsonrpc":"2.0","result":"${big}","id":1}`)).toBeUndefined();
    expect(answeredIdOf("")).toBeUndefined();
    expect(answeredIdOf(`{"id":"${big}`)).toBeUndefined();
  });

  it("keys inside nested values and strings do not count", () => {
    expect(answeredIdOf(`{"params":{"method":"x"},"note":"\\"method\\": 1","id":2,"result":"${big}"}`)).toBe(2);
    expect(answeredIdOf(`{"meta":{"id":1,"result":2},"error":{"message":"${big}"}}`)).toBeUndefined();
  });
});
