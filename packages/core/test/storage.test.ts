import { BACKENDS } from "./_backends.ts";
import { describeStorageContract } from "./_storage-contract.ts";

for (const backend of BACKENDS) describeStorageContract(backend);
