module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_int, pro_fp], extensions = [int16, bf16]>} {
  func.func @types() -> (tensor<2x2xi1>, tensor<3xi8>, tensor<2xi16>, tensor<2xi32>, tensor<3xi48>, tensor<3xf16>, tensor<2xbf16>, tensor<4xf32>, tensor<2xi16>) {
    %0 = "tosa.const"() <{values = dense<[[true, false], [false, true]]> : tensor<2x2xi1>}> : () -> tensor<2x2xi1>
    %1 = "tosa.const"() <{values = dense<[-128, 0, 127]> : tensor<3xi8>}> : () -> tensor<3xi8>
    %2 = "tosa.const"() <{values = dense<"0x0100FFFF"> : tensor<2xi16>}> : () -> tensor<2xi16>
    %3 = "tosa.const"() <{values = dense<[-2147483648, 2147483647]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %4 = "tosa.const"() <{values = dense<[1, -2, 140737488355327]> : tensor<3xi48>}> : () -> tensor<3xi48>
    %5 = "tosa.const"() <{values = dense<[1.500000e+00, 0x7C00, -6.103516e-05]> : tensor<3xf16>}> : () -> tensor<3xf16>
    %6 = "tosa.const"() <{values = dense<[1.500000e+00, -2.250000e+00]> : tensor<2xbf16>}> : () -> tensor<2xbf16>
    %7 = "tosa.const"() <{values = dense<[0x7FC00000, -0.000000e+00, 9.999940e-41, 1.000000e-01]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %8 = "tosa.const"() <{values = dense<7> : tensor<2xi16>}> : () -> tensor<2xi16>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x2xi1>, tensor<3xi8>, tensor<2xi16>, tensor<2xi32>, tensor<3xi48>, tensor<3xf16>, tensor<2xbf16>, tensor<4xf32>, tensor<2xi16>
  }
}
