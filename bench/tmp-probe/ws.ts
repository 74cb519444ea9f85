import { bigMessage, bigText } from "../scenarios/big-message.js";
const r = await bigMessage("ws", bigText(1e5), 0);
console.log(r.sample);
process.exit(0);
