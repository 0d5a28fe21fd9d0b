// How many GPUs KAITO runs a catalogue preset on, as its controller decides it under node
// auto-provisioning (kaito pkg/workspace/estimator/nodesestimator/estimator.go, EstimateNodeCount;
// website/docs/memory-estimator.md): the user's `resource.count` is replaced by the estimate, and each
// node's vLLM runs on all its GPUs (pkg/model/interface.go, configureParallelism). Synth can do the same
// sum for a catalogue model on a SKU of the table, and so say what the deployment will really occupy.
import { KaitoCatalogModel } from './catalog.generated';
import { KaitoSku } from './skus';

const GiB = 1024 ** 3;
/** vLLM's weights are ~2% larger in memory than on disk (weightExpansionFactor). */
const WEIGHT_EXPANSION = 1.02;
/** `--gpu-memory-utilization` KAITO runs vLLM with (interface.go, buildVLLMInferenceCommand). */
const GPU_MEMORY_UTILIZATION = 0.84;
/** The fixed per-GPU reserve (baseOverheadGiB), lower on A10s (baseOverheadGiBByGPUModel). */
const baseOverheadGiB = (sku: KaitoSku) => (sku.gpuModel === 'NVIDIA A10' ? 1.5 : 2.3);
/** The overhead that grows with the weights on each GPU (overheadWeightFactor). */
const OVERHEAD_WEIGHT_FACTOR = 0.05;
/** The context KAITO sizes the KV cache for when `max-model-len` is not set. */
export const KAITO_DEFAULT_MAX_MODEL_LEN = 2048;

/** KAITO's estimate for one replica: nodes of the SKU and GPUs in all, or why it cannot place the model. */
export type KaitoEstimate =
  | { readonly nodes: number; readonly gpus: number }
  | { readonly tooSmall: string };

/** The KV-cache bytes per token (generator.go, calculateKVCacheTokenSize; fp16). */
export function bytesPerToken(m: KaitoCatalogModel): number {
  const headDim = m.headDim ?? Math.trunc(m.hiddenSize / m.numAttentionHeads);
  const elements = m.kvLoraRank !== undefined ? m.kvLoraRank + (m.qkRopeHeadDim ?? 0) : 2 * m.numKeyValueHeads * headDim;
  return elements * m.numHiddenLayers * 2;
}

/** A catalogue size such as "7.15Gi" in bytes. */
function sizeInBytes(size: string): number {
  const match = /^([\d.]+)(Gi|Mi|Ti)$/.exec(size);
  if (!match) throw new Error(`KAITO catalogue size ${JSON.stringify(size)} is not a quantity in Mi, Gi or Ti`);
  return Number(match[1]) * { Mi: 1024 ** 2, Gi: GiB, Ti: 1024 * GiB }[match[2] as 'Mi' | 'Gi' | 'Ti'];
}

/** KAITO's node estimate for the model on the SKU with the given context length. */
export function estimateKaitoGpus(m: KaitoCatalogModel, sku: KaitoSku, maxModelLen: number): KaitoEstimate {
  const modelSize = sizeInBytes(m.modelFileSize) * WEIGHT_EXPANSION;
  const gpuMemory = (sku.gpuMemoryGiB * GiB) / sku.gpus;
  const available = gpuMemory * GPU_MEMORY_UTILIZATION;
  const fixedReserve = baseOverheadGiB(sku) * GiB + (maxModelLen * bytesPerToken(m)) / sku.gpus;
  if (available <= fixedReserve) {
    return {
      tooSmall: `each GPU has ${(gpuMemory / GiB).toFixed(1)} GiB, of which vLLM may use ${(available / GiB).toFixed(1)} GiB, `
      + `less than the ${(fixedReserve / GiB).toFixed(1)} GiB KAITO reserves for the runtime and a ${maxModelLen}-token KV cache`,
    };
  }
  const perGpu = (available - fixedReserve) / (1 + OVERHEAD_WEIGHT_FACTOR);
  const minGpus = Math.trunc(modelSize / perGpu) + 1;
  const nodes = Math.ceil(minGpus / sku.gpus);
  return { nodes, gpus: nodes * sku.gpus };
}
