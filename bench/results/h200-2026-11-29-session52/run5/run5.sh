#!/usr/bin/env bash
# Session 52, run 5 (H200): every GPU test with the new RadixSort.OneSweepInVulkansTiles (RILL_RADIX_TILES=vulkan:
# through OpenGL the sorts then take Vulkan's OneSweep tiles, 256 x 30 keys and 256 x 24 pairs, grouped write-out).
source bench/gpu/device_prologue.sh run5
bench/gpu/gpu_tests.sh "$O" 290; el
grep -h "OneSweepInVulkansTiles" "$O"/tests_*.txt
finish
