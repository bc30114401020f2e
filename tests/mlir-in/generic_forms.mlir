#loc = loc("model.onnx":0:0)
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<1x4xi8>) -> (tensor<1x4xi8>, tensor<6xi1>), sym_name = "generic"}> ({
  ^bb0(%arg0: tensor<1x4xi8> loc("model.onnx":1:1)):
    %0 = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32> loc(#loc)
    %1 = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8> loc(#loc)
    %2 = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8> loc(#loc)
    %3 = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8> loc(#loc)
    %4 = "tosa.rescale"(%arg0, %0, %1, %2, %3) <{input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>, scale32 = true}> : (tensor<1x4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4xi8> loc("rescale"("model.onnx":3:7))
    %5 = "tosa.const"() <{values = dense_resource<blob1> : tensor<1x4xi8>}> : () -> tensor<1x4xi8> loc(#loc)
    %6 = "tosa.const"() <{values = dense<"0x05"> : tensor<1x4xi1>}> : () -> tensor<1x4xi1> loc(#loc)
    %7 = "tosa.select"(%6, %4, %5) : (tensor<1x4xi1>, tensor<1x4xi8>, tensor<1x4xi8>) -> tensor<1x4xi8> loc(#loc)
    %8 = "tosa.const"() <{values = dense<"0x2D"> : tensor<6xi1>}> : () -> tensor<6xi1> loc(#loc)
    "func.return"(%7, %8) : (tensor<1x4xi8>, tensor<6xi1>) -> () loc(#loc)
  }) : () -> () loc(#loc)
}) : () -> () loc(#loc)

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x01000000FF7F0280"
    }
  }
#-}
