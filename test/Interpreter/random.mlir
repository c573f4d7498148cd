// fusion.rand and fusion.randn follow docs/random.md bit for bit; these
// values pin the recipe (Philox-4x32-10, key = seed, counter = (i/4, offset)).
// RUN: fusion-interpret %s --fusion=rand --input=0 --input=0 --input=6 --print --print-exact | FileCheck %s --check-prefix=RAND
// RUN: fusion-interpret %s --fusion=randn --input=0 --input=0 --print | FileCheck %s --check-prefix=RANDN
// Seeded random inputs are reproducible and within [-1, 1).
// RUN: fusion-interpret %s --fusion=identity --input=3xf32 --seed=7 --print > %t.a
// RUN: fusion-interpret %s --fusion=identity --input=3xf32 --seed=7 --print > %t.b
// RUN: diff %t.a %t.b
// RUN: fusion-interpret %s --fusion=identity --input=3xf32 --seed=8 --print > %t.c
// RUN: not diff %t.a %t.c
// RUN: fusion-interpret %s --fusion=identity --input=2000xf32 --seed=1 --print | FileCheck %s --check-prefix=SUMMARY

// With counter 0 and key 0 the block is 0x6627e8d5 0xe169c58d 0xbc57ac4c
// 0x9b00dbd8; element i is (word[i % 4] >> 8) * 2^-24.
// RAND:      out0: tensor<6xf32>
// RAND-NEXT: [0.3990464210510254, 0.8805201649665833, 0.7357127666473389, 0.6054818034172058, 0.9722411632537842, 0.362091064453125]

// Box-Muller on words (0, 1) and (2, 3): r cos, r sin, r' cos, r' sin.
// RANDN:      out0: tensor<4xf64>
// RANDN-NEXT: [0.99113747{{[0-9]*}}, -0.92466278{{[0-9]*}}, -0.61760905{{[0-9]*}}, -0.48206834{{[0-9]*}}]

// SUMMARY:      out0: tensor<2000xf32>
// SUMMARY-NEXT: [{{.*}}, {{.*}}, {{.*}}, ..., {{.*}}, {{.*}}, {{.*}}]
// SUMMARY-NEXT: (2000 elements; min -0.99{{[0-9]*}}, max 0.99{{[0-9]*}}, mean {{-?}}0.0{{[0-9]*}})

fusion.fusion @rand(%seed: i64, %offset: i64, %n: index) -> tensor<?xf32> {
  %r = fusion.rand %seed, %offset (%n) : tensor<?xf32>
  fusion.return %r : tensor<?xf32>
}

fusion.fusion @randn(%seed: i64, %offset: i64) -> tensor<4xf64> {
  %r = fusion.randn %seed, %offset : tensor<4xf64>
  fusion.return %r : tensor<4xf64>
}

fusion.fusion @identity(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = fusion.neg %x : tensor<?xf32>
  %s = fusion.neg %r : tensor<?xf32>
  fusion.return %s : tensor<?xf32>
}
