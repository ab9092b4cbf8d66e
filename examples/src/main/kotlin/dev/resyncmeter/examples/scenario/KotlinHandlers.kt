package dev.resyncmeter.examples.scenario

import io.kubernetes.client.informer.ResourceEventHandler
import io.kubernetes.client.openapi.models.V1ConfigMap

/** A handler class compiled by Kotlin. */
class KotlinHandler(private val calls: HandlerShapes.Calls) : ResourceEventHandler<V1ConfigMap> {
    override fun onAdd(obj: V1ConfigMap) = calls.add(LABEL)

    override fun onUpdate(oldObj: V1ConfigMap, newObj: V1ConfigMap) = calls.update(LABEL, oldObj, newObj)

    override fun onDelete(obj: V1ConfigMap, deletedFinalStateUnknown: Boolean) = calls.delete(LABEL)

    companion object {
        const val LABEL = "KotlinHandler"
    }
}

/** The label of the object expression below: the class it is made in, as for javac's anonymous classes. */
const val OBJECT_EXPRESSION_LABEL = "KotlinHandlersKt"

/** A Kotlin object expression whose update goes to a Kotlin lambda. */
fun objectExpression(calls: HandlerShapes.Calls): ResourceEventHandler<V1ConfigMap> {
    val update: (V1ConfigMap, V1ConfigMap) -> Unit = { old, new -> calls.update(OBJECT_EXPRESSION_LABEL, old, new) }
    return object : ResourceEventHandler<V1ConfigMap> {
        override fun onAdd(obj: V1ConfigMap) = calls.add(OBJECT_EXPRESSION_LABEL)

        override fun onUpdate(oldObj: V1ConfigMap, newObj: V1ConfigMap) = update(oldObj, newObj)

        override fun onDelete(obj: V1ConfigMap, deletedFinalStateUnknown: Boolean) = calls.delete(OBJECT_EXPRESSION_LABEL)
    }
}
