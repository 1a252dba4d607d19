// The package's Node ESM entry (pkg/index.mjs), built by `make pkg`.
import contract from "./contract.cjs";
import * as toolwire from "../../pkg/index.mjs";

contract(toolwire, "esm");
