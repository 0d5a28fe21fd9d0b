// The node SKUs KAITO's SKU handlers know, per cloud: under node auto-provisioning its webhook refuses
// any other `resource.instanceType` (kaito: api/v1beta1/workspace_validation.go,
// ResourceSpec.validateCreateWithInference: "Unsupported instance type <t>. Supported SKUs: …"), except
// that on Azure a name starting with Standard_N or Standard_D passes unknown. The handler is chosen by
// the controller's CLOUD_PROVIDER (Helm value cloudProviderName, default azure: kaito pkg/sku/helpers.go).
// Tables from kaito pkg/sku/azure_sku_handler.go, aws_sku_handler.go and arc_sku_handker.go; GPU memory
// is the node's total, as there. The AWS table is the longer of the two stored versions (a later one
// drops the GPUs of compute capability below 8.0): a SKU is refused here only when no version knows it.

/** A GPU node SKU: its GPU count and total GPU memory in GiB. */
export interface KaitoSku {
  readonly gpus: number;
  readonly gpuMemoryGiB: number;
  /** kaito's GPUModel, when the estimator treats it specially. */
  readonly gpuModel?: string;
}

/** The clouds KAITO has SKU handlers for. */
export type KaitoCloudProvider = 'azure' | 'aws' | 'arc';
export const KAITO_CLOUD_PROVIDERS: readonly KaitoCloudProvider[] = ['azure', 'aws', 'arc'];

/** The SKUs of table rows (names sharing GPU count, memory and model), by name. */
type SkuRow = readonly [names: readonly string[], gpus: number, gpuMemoryGiB: number, gpuModel?: string];

function table(rows: readonly SkuRow[]): ReadonlyMap<string, KaitoSku> {
  const skus = new Map<string, KaitoSku>();
  for (const [names, gpus, gpuMemoryGiB, gpuModel] of rows) {
    for (const name of names) skus.set(name, { gpus, gpuMemoryGiB, ...(gpuModel !== undefined ? { gpuModel } : {}) });
  }
  return skus;
}

const AZURE = table([
  [['Standard_NC4as_T4_v3', 'Standard_NC8as_T4_v3', 'Standard_NC16as_T4_v3'], 1, 16],
  [['Standard_NC64as_T4_v3'], 4, 64],
  [['Standard_NV36ads_A10_v5'], 1, 24, 'NVIDIA A10'],
  [['Standard_NV72ads_A10_v5'], 2, 48, 'NVIDIA A10'],
  [['Standard_NC24ads_A100_v4'], 1, 80],
  [['Standard_NC48ads_A100_v4'], 2, 160],
  [['Standard_NC96ads_A100_v4'], 4, 320],
  [['Standard_ND96asr_A100_v4'], 8, 320],
  [['Standard_ND96amsr_A100_v4'], 8, 640],
  [['Standard_NC40ads_H100_v5', 'Standard_NCC40ads_H100_v5'], 1, 94],
  [['Standard_NC80adis_H100_v5'], 2, 188],
  [['Standard_ND96isr_H100_v5'], 8, 640],
  [['Standard_ND96isr_H200_v5'], 8, 1128],
  [['Standard_NG32ads_V620_v1', 'Standard_NG32adms_V620_v1'], 1, 32],
  [['Standard_NV12s_v3'], 1, 8],
  [['Standard_NV24s_v3'], 2, 16],
  [['Standard_NV48s_v3'], 4, 32],
  [['Standard_NV32as_v4'], 1, 16],
]);

const sizes = (family: string, sizeNames: readonly string[]) => sizeNames.map((s) => `${family}.${s}`);

const AWS = table([
  [['p2.xlarge'], 1, 12], [['p2.8xlarge'], 8, 96], [['p2.16xlarge'], 16, 192],
  [['p3.2xlarge'], 1, 16], [['p3.8xlarge'], 4, 64], [['p3.16xlarge'], 8, 128], [['p3dn.24xlarge'], 8, 256],
  [['p4d.24xlarge'], 8, 320], [['p4de.24xlarge'], 8, 640],
  [['p5.48xlarge'], 8, 640], [['p5e.48xlarge', 'p5en.48xlarge'], 8, 1128],
  [[...sizes('g6', ['xlarge', '2xlarge', '4xlarge', '8xlarge', '16xlarge']), ...sizes('gr6', ['4xlarge', '8xlarge'])], 1, 24],
  [sizes('g6', ['12xlarge', '24xlarge']), 4, 96], [['g6.48xlarge'], 8, 192],
  [sizes('g5g', ['xlarge', '2xlarge', '4xlarge', '8xlarge']), 1, 16], [sizes('g5g', ['16xlarge', 'metal']), 2, 32],
  [sizes('g5', ['xlarge', '2xlarge', '4xlarge', '8xlarge', '16xlarge']), 1, 24], [sizes('g5', ['12xlarge', '24xlarge']), 4, 96], [['g5.48xlarge'], 8, 192],
  [sizes('g4dn', ['xlarge', '2xlarge', '4xlarge', '8xlarge', '16xlarge']), 1, 16], [['g4dn.12xlarge'], 4, 64], [['g4dn.metal'], 8, 128],
  [sizes('g4ad', ['xlarge', '2xlarge', '4xlarge']), 1, 8], [['g4ad.8xlarge'], 2, 16], [['g4ad.16xlarge'], 4, 32],
  [sizes('g3s', ['xlarge', '4xlarge']), 1, 8], [['g3s.8xlarge'], 2, 16], [['g3s.16xlarge'], 4, 32],
  [['trn1.2xlarge'], 1, 32], [['trn1.32xlarge', 'trn1n.32xlarge'], 16, 512],
  [['inf2.xlarge', 'inf2.8xlarge'], 1, 32], [['inf2.24xlarge'], 6, 192], [['inf2.48xlarge'], 12, 384],
]);

const ARC = table([
  [['Standard_NK6'], 1, 8], [['Standard_NK12'], 2, 16],
  [['Standard_NC4_A2', 'Standard_NC8_A2'], 1, 16], [['Standard_NC16_A2', 'Standard_NC32_A2'], 2, 32],
  [['Standard_NC4_A16', 'Standard_NC8_A16'], 1, 16], [['Standard_NC16_A16', 'Standard_NC32_A16'], 2, 32],
]);

const SKUS: Readonly<Record<KaitoCloudProvider, ReadonlyMap<string, KaitoSku>>> = { azure: AZURE, aws: AWS, arc: ARC };

/** The SKU KAITO knows by this name on the cloud, or undefined. */
export function kaitoSku(cloud: KaitoCloudProvider, instanceType: string): KaitoSku | undefined {
  return SKUS[cloud].get(instanceType);
}

/** The names KAITO knows on the cloud, sorted. */
export function kaitoSkuNames(cloud: KaitoCloudProvider): string[] {
  return [...SKUS[cloud].keys()].sort();
}

/** Whether KAITO's webhook accepts an instance type it has no SKU entry for (Azure N- and D-series). */
export function acceptsUnknownSku(cloud: KaitoCloudProvider, instanceType: string): boolean {
  return cloud === 'azure' && (instanceType.startsWith('Standard_N') || instanceType.startsWith('Standard_D'));
}
