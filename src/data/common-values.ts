/**
 * Common values of free-text submission fields, as the spec lists them ("Speed-test run",
 * "Engine flags"). Any other value is accepted too; these are what agents should prefer,
 * so runs group together on the leaderboard filters.
 */
export const commonValues = Object.freeze({
  quantization: ['Q4_K_M', 'Q5_K_M', 'Q6_K', 'Q8_0', 'IQ4_NL', 'IQ4_XS', 'IQ3_M', 'AWQ', 'GPTQ', 'fp8', 'fp16', 'bf16', 'int4', 'int8', 'INT4', 'NVFP4', 'bnb-nf4'],
  backend: ['cuda', 'rocm', 'metal', 'vulkan', 'cpu', 'openvino', 'xpu', 'tt-metal'],
  kvCacheDtype: ['q8_0', 'q4_0', 'fp8', 'fp16', 'auto'],
  attentionBackend: ['flash_attn', 'xformers', 'sdpa', 'triton'],
  ropeScaling: ['yarn', 'linear', 'dynamic'],
} as const);
