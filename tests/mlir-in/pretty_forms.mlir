module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_fp], extensions = [controlflow, variable]>} {
  tosa.variable @state = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  func.func @forms(%arg0: tensor<1x3x4x4xf32>, %arg1: tensor<i1>) -> (tensor<1x8x16xf32>, tensor<2xf32>, tensor<f32>) {
    %0 = "tosa.const"() <{values = dense<"0x0000803F"> : tensor<8x1x1x3xf32>}> : () -> tensor<8x1x1x3xf32>
    %1 = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.500000e+00]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %2 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %3 = tosa.transpose %arg0 {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32>
    %4 = tosa.conv2d %3, %0, %1, %2, %2 {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<8x1x1x3xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x8xf32>
    %5 = tosa.clamp %4 {max_val = 0x7F800000 : f32, min_val = 0.000000e+00 : f32} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
    %6 = tosa.maximum %5, %5 {nan_mode = IGNORE} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
    %7 = tosa.transpose %6 {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
    %8 = tosa.const_shape  {values = dense<[1, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %9 = tosa.reshape %7, %8 : (tensor<1x8x4x4xf32>, !tosa.shape<3>) -> tensor<1x8x16xf32>
    %10 = tosa.variable_read @state : tensor<2xf32>
    %11 = tosa.cond_if %arg1 (%arg2 = %10) : tensor<i1> (tensor<2xf32>) -> tensor<2xf32> {
    ^bb0(%arg2: tensor<2xf32>):
      %15 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
      %16 = tosa.negate %arg2, %15, %15 : (tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2xf32>
      tosa.yield %16 : tensor<2xf32>
    } else {
    ^bb0(%arg2: tensor<2xf32>):
      tosa.yield %arg2 : tensor<2xf32>
    }
    tosa.variable_write @state, %11 : tensor<2xf32>
    %12 = "tosa.const"() <{values = dense<3.500000e+00> : tensor<f32>}> : () -> tensor<f32>
    %13 = tosa.while_loop (%arg2 = %12) : (tensor<f32>) -> tensor<f32> {
      %15 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %16 = tosa.greater %arg2, %15 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      tosa.yield %16 : tensor<i1>
    } do {
    ^bb0(%arg2: tensor<f32>):
      %15 = "tosa.const"() <{values = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
      %16 = tosa.sub %arg2, %15 : (tensor<f32>, tensor<f32>) -> tensor<f32>
      tosa.yield %16 : tensor<f32>
    }
    return %9, %11, %13 : tensor<1x8x16xf32>, tensor<2xf32>, tensor<f32>
  }
}
