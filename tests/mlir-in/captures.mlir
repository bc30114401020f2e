module {
  func.func @captures(%arg0: tensor<i1>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
    %0 = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %1 = "tosa.const"() <{values = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %2 = "tosa.const"() <{values = dense<5.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %3 = tosa.cond_if %arg0 : tensor<i1> -> tensor<2xf32> {
      %6 = tosa.add %arg1, %0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      tosa.yield %6 : tensor<2xf32>
    } else {
      %6 = tosa.sub %0, %arg1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      tosa.yield %6 : tensor<2xf32>
    }
    %4 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %5 = tosa.while_loop (%arg2 = %4) : (tensor<f32>) -> tensor<f32> {
      %6 = tosa.greater %2, %arg2 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      tosa.yield %6 : tensor<i1>
    } do {
    ^bb0(%arg2: tensor<f32>):
      %6 = tosa.add %arg2, %1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
      tosa.yield %6 : tensor<f32>
    }
    return %3, %5 : tensor<2xf32>, tensor<f32>
  }
}
